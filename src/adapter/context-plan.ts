import { wholeContext, type ContextPlan } from '../core/context.js';
import type { PrimitiveKind, PrimitiveMetadata } from '../core/primitive-metadata.js';
import { readsEverything } from '../core/policy/context-scope.js';
import type { Catalog } from './catalog.js';
import { contextReadsOf, isObserved } from './decision-events.js';
import type { GateSettings } from './gate-options.js';
import type { PolicyView } from './policy-view.js';

// What a gated request's context must hold: whatever the policy's rules, the catalog's
// requirements (both in `policy.readsFor`), its cache key (built from the same reads) and the
// gate's own consumers read. The rest is never copied: a request's eight headers cost more to
// copy than the policy costs to decide, and a policy that reads one header needs one.
// A plan belongs to one view and one catalog, the pair a request holds from start to end, so a
// swapped policy never sees a context built for the old one (gate-runtime.ts widens the
// contexts it keeps for sessions before deciding anything about them with a new policy).

/** Settings that read more of the context than the policy does. */
export interface ContextConsumers {
  readonly decisions: GateSettings['decisions'];
  /** mcp-gate/server's `missingCapability: 'error'` compares declared with required capabilities itself. */
  readonly missingCapability?: 'hide' | 'error';
  /** Resolves flags with an evaluation context that carries some headers (flag-resolution.ts). */
  readonly flags?: GateSettings['flags'];
}

const plansByView = new WeakMap<PolicyView, WeakMap<Catalog, ContextPlan>>();

export function contextPlanFor(view: PolicyView, catalog: Catalog, consumers: ContextConsumers): ContextPlan {
  // A decision log receives the whole context, as documented for DecisionEvent, unless its
  // listener declared what it reads (decision-events.ts, withContextReads).
  const listenerReads = contextReadsOf(consumers.decisions);
  if (listenerReads === undefined && isObserved(consumers.decisions)) return wholeContext;
  let plans = plansByView.get(view);
  if (plans === undefined) plansByView.set(view, (plans = new WeakMap()));
  let plan = plans.get(catalog);
  if (plan === undefined) {
    const policyReads = view.policy.readsFor(metadataOf(catalog));
    // The headers a flag provider is given, when this policy's flags are resolved.
    const flagHeaders = Object.keys(view.policy.flags ?? {}).length === 0 ? [] : (consumers.flags?.headers ?? []).map((name) => `request.headers.${name}`);
    plan = planReads([...policyReads, ...(listenerReads ?? []), ...flagHeaders], consumers.missingCapability === 'error');
    plans.set(catalog, plan);
  }
  return plan;
}

const primitiveKinds: readonly PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

function metadataOf(catalog: Catalog): PrimitiveMetadata[] {
  return primitiveKinds.flatMap((kind) => catalog.entries(kind).map((entry) => entry.metadata));
}

const headerPrefix = 'request.headers.';

/**
 * The plan covering every path in `reads` (context paths such as `request.headers.x-team`,
 * `client.capabilities.sampling`, `auth`, or `*` for a computed path). A path below a header
 * (`request.headers.x-team.length`) may name a header `x-team` or one called `x-team.length`:
 * both are kept.
 */
export function planReads(reads: readonly string[], readsCapabilities = false): ContextPlan {
  if (reads.includes(readsEverything)) return wholeContext;
  let allHeaders = false;
  const headerNames = new Set<string>();
  let capabilities = readsCapabilities;
  let scopes = false;
  let claims = false;
  const covers = (path: string, part: string) => path === part || path.startsWith(`${part}.`) || part.startsWith(`${path}.`);
  for (const path of reads) {
    if (path === 'request' || path === 'request.headers') allHeaders = true;
    else if (path.startsWith(headerPrefix)) {
      const segments = path.slice(headerPrefix.length).split('.');
      for (let count = 1; count <= segments.length; count++) headerNames.add(segments.slice(0, count).join('.').toLowerCase());
    }
    capabilities ||= covers(path, 'client.capabilities');
    scopes ||= covers(path, 'auth.scopes');
    claims ||= covers(path, 'auth.claims');
  }
  if (allHeaders && capabilities && scopes && claims) return wholeContext;
  return Object.freeze({ headers: allHeaders ? 'all' : Object.freeze([...headerNames].sort()), capabilities, scopes, claims });
}

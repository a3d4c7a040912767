import { createListCache, type ListCache } from '../core/policy/list-cache.js';
import type { RequestContext } from '../core/context.js';
import type { PrimitiveKind, PrimitiveMetadata } from '../core/primitive-metadata.js';
import type { Decision, MissingCapabilities, Policy } from '../core/policy/types.js';
import type { Catalog, CatalogEntry } from './catalog.js';

export type { MissingCapabilities };

/**
 * One policy plus the caches derived from it. A gate swaps whole views, and every request holds
 * the view it started with, so no response mixes two policies.
 */
export interface PolicyView {
  readonly policy: Policy;
  /**
   * Equal for two contexts that must get the same decisions on this catalog: the policy's key
   * over what its rules and these primitives' requirements read, plus the missing-capabilities mode.
   */
  cacheKey(catalog: Catalog, context: RequestContext): string;
  isVisible(context: RequestContext, entry: CatalogEntry): boolean;
  explain(context: RequestContext, entry: CatalogEntry): Decision;
  /** The entries of one kind a context may see, in registration order; versioned tools resolved to one each. */
  visibleEntries(catalog: Catalog, kind: PrimitiveKind, context: RequestContext, cacheKey: string): readonly CatalogEntry[];
  /** The registration serving a public tool name for this context, or undefined when it is hidden or unknown. */
  resolveTool(catalog: Catalog, publicName: string, context: RequestContext): CatalogEntry | undefined;
}

// Lists of 512 recurring context keys per catalog (kinds together); one-off contexts are only
// remembered as keys (list-cache.ts), so they neither evict these nor hold lists.
const maxListsPerCatalog = 512;
const invalidMetadataDecision: Decision = Object.freeze({ allowed: false, reason: 'error', message: 'invalid mcp-gate metadata' });

export function createPolicyView(policy: Policy, onMissingCapabilities: MissingCapabilities): PolicyView {
  // Keyed by catalog so a registry change (a new catalog) drops stale lists without bookkeeping.
  const listsByCatalog = new WeakMap<Catalog, ListCache<CatalogEntry>>();
  const keyersByCatalog = new WeakMap<Catalog, (context: RequestContext) => string>();
  const ignoreMissingCapabilities = onMissingCapabilities === 'allow';

  function metadataFor(context: RequestContext, entry: CatalogEntry): PrimitiveMetadata {
    return ignoreMissingCapabilities && context.client.capabilities === undefined ? entry.metadataIgnoringCapabilities : entry.metadata;
  }

  /**
   * Fails closed: invalid metadata, or a Policy that breaks its promise not to throw, hides the
   * entry. `decide` is a list's decisions for one context (policy.forContext); without one, the
   * policy evaluates this entry alone (a call or a read), with no closure allocated per request.
   */
  function visibleBy(decide: ((metadata: PrimitiveMetadata) => boolean) | undefined, context: RequestContext, entry: CatalogEntry): boolean {
    if (entry.metadataError) return false;
    try {
      const metadata = metadataFor(context, entry);
      return (decide === undefined ? policy.evaluate(context, metadata) : decide(metadata)) === true;
    } catch {
      return false;
    }
  }

  function isVisible(context: RequestContext, entry: CatalogEntry): boolean {
    return visibleBy(undefined, context, entry);
  }

  /** `decide` as for visibleBy: a list's decisions, or undefined for a single tools/call. */
  function chooseTool(catalog: Catalog, publicName: string, context: RequestContext, decide?: (metadata: PrimitiveMetadata) => boolean): CatalogEntry | undefined {
    const candidates = catalog.toolCandidates(publicName);
    if (!candidates) return undefined;
    // An enabled version wins over a disabled one; a lone disabled one still resolves, so the
    // server answers "disabled" for it exactly as it would without the gate.
    let disabled: CatalogEntry | undefined;
    for (const candidate of candidates) {
      if (!visibleBy(decide, context, candidate)) continue;
      if (candidate.enabled) return candidate;
      disabled ??= candidate;
    }
    return disabled;
  }

  function resolveTool(catalog: Catalog, publicName: string, context: RequestContext): CatalogEntry | undefined {
    return chooseTool(catalog, publicName, context);
  }

  function computeVisible(catalog: Catalog, kind: PrimitiveKind, context: RequestContext): CatalogEntry[] {
    // Decisions for one request: conditions that read only the request run once per list.
    const decide = policy.forContext(context);
    const visible: CatalogEntry[] = [];
    if (kind !== 'tool') {
      for (const entry of catalog.entries(kind)) if (visibleBy(decide, context, entry)) visible.push(entry);
      return visible;
    }
    // A versioned tool appears once, at the position of its first registration, whichever version wins.
    const seenNames = new Set<string>();
    for (const entry of catalog.entries(kind)) {
      if (seenNames.has(entry.publicName)) continue;
      seenNames.add(entry.publicName);
      const chosen = chooseTool(catalog, entry.publicName, context, decide);
      if (chosen) visible.push(chosen);
    }
    return visible;
  }

  return {
    policy,
    cacheKey(catalog, context) {
      let keyer = keyersByCatalog.get(catalog);
      if (!keyer) keyersByCatalog.set(catalog, (keyer = policy.contextKeyFor(allMetadata(catalog))));
      const missing = ignoreMissingCapabilities && context.client.capabilities === undefined ? '\u0000m' : '';
      return keyer(context) + missing;
    },
    isVisible,
    explain(context, entry) {
      if (entry.metadataError) return invalidMetadataDecision;
      try {
        return policy.explain(context, metadataFor(context, entry));
      } catch {
        return { allowed: false, reason: 'error', message: 'policy evaluation failed' };
      }
    },
    visibleEntries(catalog, kind, context, cacheKey) {
      // Custom operators may read clocks or counters: such a policy's decisions are never reused.
      if (!policy.cacheable) return computeVisible(catalog, kind, context);
      let lists = listsByCatalog.get(catalog);
      if (!lists) listsByCatalog.set(catalog, (lists = createListCache(maxListsPerCatalog)));
      // The key is built whatever happens (cursors are bound to it), so unlike createVisibilityFilter
      // there is no key to save by bypassing the cache when callers rarely recur.
      const listKey = `${kind}\u0000${cacheKey}`;
      return lists.get(listKey) ?? lists.admit(listKey, computeVisible(catalog, kind, context));
    },
    resolveTool,
  };
}

const primitiveKinds: readonly PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

function allMetadata(catalog: Catalog): PrimitiveMetadata[] {
  return primitiveKinds.flatMap((kind) => catalog.entries(kind).map((entry) => entry.metadata));
}

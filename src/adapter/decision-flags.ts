import type { FlagValue, RequestContext } from '../core/context.js';
import { flagFallbacksOf, type FlagFallback } from '../core/flag-values.js';
import type { Policy } from '../core/policy/types.js';

// A decision that read flags depends on their values as much as on the rules: a decision log
// that says "denied by rule new-search-off" must also say that new-search was false, and
// whether that was the provider's answer or the declared default standing in for one. Only the
// flags the policy declares are reported, whatever else a context may carry.

/** The flags a decision's policy reads, as the decision used them. */
export interface DecisionFlags {
  /** Each flag the policy reads, by key: the value decided on (resolved, or the declared default). */
  readonly values: Readonly<Record<string, FlagValue>>;
  /** Those among them that held their declared default because resolving them failed, and why. */
  readonly fallbacks: readonly FlagFallback[];
}

/** Why a flag holds its default when the decision came before any flag was resolved (mcp-gate/server's pre-dispatch checks). */
export const decidedBeforeResolution = 'decided before the request resolved its flags';

/** The flags `policy` reads as `context` holds them; undefined when the policy reads none. */
export function decisionFlagsOf(policy: Policy, context: RequestContext): DecisionFlags | undefined {
  const declared = policy.flags;
  if (declared === undefined) return undefined;
  const keys = Object.keys(declared);
  if (keys.length === 0) return undefined;
  const resolved = context.flags;
  const reported = new Map(flagFallbacksOf(context).map((fallback) => [fallback.key, fallback]));
  const values: Record<string, FlagValue> = {};
  const fallbacks: FlagFallback[] = [];
  for (const key of keys) {
    const fallback = reported.get(key);
    if (resolved !== undefined && Object.hasOwn(resolved, key)) {
      values[key] = resolved[key]!;
      if (fallback !== undefined) fallbacks.push(fallback);
    } else {
      // A flag missing from the context reads as its declared default (policy/flag-reads.ts).
      values[key] = declared[key]!;
      fallbacks.push(fallback ?? { key, value: declared[key]!, why: decidedBeforeResolution });
    }
  }
  return Object.freeze({ values: Object.freeze(values), fallbacks: Object.freeze(fallbacks) });
}

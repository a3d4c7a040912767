import { CopyBudget, copyPlainData } from './context-input.js';
import type { FlagValue, RequestContext } from './context.js';
import { FrozenRequestContext } from './request-memo.js';

// A gate resolves the flags a policy reads once per request, before deciding, and decides on
// the request's context with those values added: the compiled rules stay synchronous and every
// decision of the request (a whole list) sees one flag state. A flag whose resolution failed
// holds the default the policy declares; why it fell back travels with the context, so an
// explanation can say that the decision was made on a default.

/** A flag that holds its declared default because resolving it failed. */
export interface FlagFallback {
  readonly key: string;
  /** The declared default it holds. */
  readonly value: FlagValue;
  /** Why, e.g. `timed out after 200 ms`, `FLAG_NOT_FOUND: flag "x" not found`. */
  readonly why: string;
}

const fallbacksByContext = new WeakMap<object, readonly FlagFallback[]>();
const noFallbacks: readonly FlagFallback[] = Object.freeze([]);

/**
 * The context of the same request with these flag values (copied as frozen plain data), and the
 * flags among them that fell back to their defaults. The parts already built are shared.
 */
export function withFlagValues(context: RequestContext, values: Readonly<Record<string, unknown>>, fallbacks: readonly FlagFallback[] = noFallbacks): RequestContext {
  const flags = copyPlainData(values, new CopyBudget()) as Readonly<Record<string, FlagValue>>;
  const built = (FrozenRequestContext.withFlags(context, flags) as RequestContext | undefined) ?? Object.freeze({ ...context, flags });
  if (fallbacks.length > 0) fallbacksByContext.set(built, Object.freeze(fallbacks.map((fallback) => Object.freeze({ ...fallback }))));
  return built;
}

/** The flags of this request that hold their declared defaults because resolving them failed. */
export function flagFallbacksOf(context: RequestContext): readonly FlagFallback[] {
  return fallbacksByContext.get(context) ?? noFallbacks;
}

/** `flag "new-search" fell back to its default false (timed out after 200 ms)`, one clause per flag. */
export function describeFlagFallbacks(fallbacks: readonly FlagFallback[]): string {
  return fallbacks.map(({ key, value, why }) => `flag ${JSON.stringify(key)} fell back to its default ${JSON.stringify(value)} (${why})`).join('; ');
}

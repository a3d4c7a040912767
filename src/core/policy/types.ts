import type { FlagValue, RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { FlagFallback } from '../flag-values.js';
import type { PolicyError, PolicyIssue } from '../errors.js';

/** What a rule or the policy's default does to the primitives it decides: show them or hide them. */
export type Effect = 'allow' | 'deny';
/** What decided: a rule, the default, an unmet metadata requirement, or an error (hidden, fail closed). */
export type DecisionReason = 'rule' | 'default' | 'requirement' | 'error';

/**
 * What a capability requirement does for a request that declared no client capabilities at all
 * (stateless HTTP): `'deny'` (default) leaves it unmet, `'allow'` treats it as met.
 */
export type MissingCapabilities = 'deny' | 'allow';

/** Why a primitive is visible or hidden for one request. */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  /** The deciding rule's id when `reason` is `rule` (or `error` raised inside a rule). */
  readonly ruleId?: string | undefined;
  /** A sentence for humans, e.g. `requires client capability "sampling"`. */
  readonly message: string;
  /** The deciding rule's description, when it has one. */
  readonly description?: string | undefined;
  /** The unmet requirement when `reason` is `requirement`. */
  readonly unmet?: UnmetRequirement | undefined;
  /** Flags the policy reads that hold their declared defaults for this request because resolving them failed (the message says so too). */
  readonly flagFallbacks?: readonly FlagFallback[] | undefined;
}

/** Which metadata requirement a request did not meet. */
export type UnmetRequirement =
  | { readonly kind: 'capability'; readonly capability: string }
  | { readonly kind: 'capabilities-undeclared'; readonly capabilities: readonly string[] }
  | { readonly kind: 'header'; readonly header: string; readonly value: string }
  | { readonly kind: 'endpoint'; readonly endpoint: string; readonly allowed: readonly string[] };

/** A rule as the policy holds it (without its compiled condition). */
export interface PolicyRuleSummary {
  readonly id: string;
  readonly effect: Effect;
  readonly description?: string | undefined;
}

/** Called once per failed evaluation; the primitive is hidden for that request (fail closed). */
export type EvaluationErrorHandler = (error: PolicyError | Error, where: { ruleId?: string | undefined; primitive: PrimitiveMetadata }) => void;

/** A validated, compiled policy document. Never throws while evaluating. */
export interface Policy {
  /** Content hash of the normalized document (without `$schema` and `invariants`, which decide nothing): equal documents have equal revisions. */
  readonly revision: string;
  /** The default effect and the rules, in document order. */
  readonly default: Effect;
  readonly rules: readonly PolicyRuleSummary[];
  /**
   * Likely mistakes that did not stop compilation (`severity: 'warning'`), e.g. an upper-case
   * header name; compilePolicy always sets it (`strict: true` makes them errors instead).
   */
  readonly warnings?: readonly PolicyIssue[];
  /**
   * Context paths the policy reads (`request.headers.x-canary`, `client.capabilities`, …), sorted.
   * Two contexts equal on these paths get the same decisions.
   */
  readonly reads: readonly string[];
  /**
   * The feature flags the rules read (`flags.<key>`), each with the default the document
   * declares; a gate resolves exactly these keys once per request, before deciding. Empty when
   * the policy reads no flag (absent on a Policy not made by compilePolicy).
   */
  readonly flags?: Readonly<Record<string, FlagValue>>;
  /** True when any decision can depend on the caller (headers, endpoint, session, client, auth). */
  readonly callerSpecific: boolean;
  /** False when custom operators are in use: they may read clocks or counters, so decisions are never cached. */
  readonly cacheable: boolean;
  /** `reads` narrowed to what these primitives' requirements actually read (for per-registry cache keys). */
  readsFor(primitives: readonly PrimitiveMetadata[]): readonly string[];
  /**
   * A cache key function for these primitives: equal keys for two contexts only when every read
   * the rules and these primitives' requirements perform gives equal values (a sub-path such as
   * `request.headers.x-team.length` is the header's length; a computed path keys on the whole
   * context); a context holding values that are not plain data gets a key of its own. Metadata
   * may be plain data (throws MetadataError when invalid).
   */
  contextKeyFor(primitives: readonly PrimitiveMetadata[]): (context: RequestContext) => string;
  /**
   * Whether the primitive is visible for this request. For a context from createRequestContext,
   * conditions that read only the request are evaluated once per request and remembered in it.
   */
  evaluate(context: RequestContext, primitive: PrimitiveMetadata): boolean;
  /**
   * `evaluate` bound to one request, for filtering many primitives: conditions that read only the
   * request (headers, client, auth) are evaluated once for the whole list, even for a hand-made
   * context. Same answers as `evaluate`.
   */
  forContext(context: RequestContext): (primitive: PrimitiveMetadata) => boolean;
  explain(context: RequestContext, primitive: PrimitiveMetadata): Decision;
}

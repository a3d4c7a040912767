import type { PrimitiveKind, RequestContext } from '../core/context.js';
import type { DecisionReason } from '../core/policy/types.js';
import type { GatedRequest } from './gated-request.js';
import type { ListCounts } from './list-items.js';
import type { Route } from './routing.js';

/**
 * One gated answer, for a decision log: a call, get, read or completion of a named primitive
 * (allowed or hidden), or one list request in summary. The request's context is included so the
 * consumer decides what to keep: it holds every header, auth claims and client details.
 */
export interface DecisionEvent {
  /** When the gate decided, as an ISO 8601 timestamp. */
  readonly time: string;
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number | undefined;
  readonly sessionId: string | undefined;
  readonly method: string;
  /** The primitive decided on (`name` as policies see it); absent for a list. */
  readonly primitive?: { readonly kind: PrimitiveKind; readonly name: string } | undefined;
  /** Lists only: registrations listed, and registrations the policy withheld. */
  readonly counts?: ListCounts | undefined;
  /** Whether the request got the primitive; always true for a list, which is answered either way. */
  readonly allowed: boolean;
  /** The decision's reason; `'list'` for a list summary. */
  readonly reason: DecisionReason | 'list';
  readonly ruleId?: string | undefined;
  /** The decision's sentence (`denied by rule "admins-only"`), or a list's counts (`3 visible, 2 hidden`). */
  readonly message: string;
  readonly policyRevision: string;
  readonly context: RequestContext;
}

/** Records the gate's decisions through `onDecision`; a no-op without one, so an unobserved gate pays nothing. */
export interface DecisionLog {
  /** Records the decision behind a route; routes that decide nothing (unknown and internal names) record nothing. */
  route(gated: GatedRequest, route: Route): void;
  list(gated: GatedRequest, counts: ListCounts): void;
}

const silentLog: DecisionLog = { route() {}, list() {} };

/** Whether someone receives this log's events (each holds the whole request context). */
export function isObserved(log: DecisionLog): boolean {
  return log !== silentLog;
}

/**
 * `onDecision` runs inside the request; if it throws, the request still gets its answer and the
 * error goes to `reportError`. The policy's `explain` runs only here, only when someone listens.
 */
export function createDecisionLog(onDecision: ((event: DecisionEvent) => void) | undefined, reportError: (error: Error) => void): DecisionLog {
  if (onDecision === undefined) return silentLog;
  const listener = onDecision;

  function emit(event: DecisionEvent): void {
    try {
      listener(event);
    } catch (error) {
      reportError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  function header(gated: GatedRequest) {
    const { request } = gated.context;
    return { time: new Date().toISOString(), requestId: gated.requestId, sessionId: request.sessionId, method: request.method };
  }

  return {
    route(gated, route) {
      const entry = route.entry;
      if (entry === undefined) return;
      const decision = gated.view.explain(gated.context, entry);
      emit({
        ...header(gated),
        primitive: { kind: entry.kind, name: entry.metadata.name },
        // What the request got, even if a nondeterministic policy explains otherwise a moment later.
        allowed: route.to !== 'hidden',
        reason: decision.reason,
        ...(decision.ruleId === undefined ? {} : { ruleId: decision.ruleId }),
        message: decision.message,
        policyRevision: gated.view.policy.revision,
        context: gated.context,
      });
    },
    list(gated, counts) {
      const message = `${counts.visible} visible, ${counts.hidden} hidden`;
      emit({ ...header(gated), counts, allowed: true, reason: 'list', message, policyRevision: gated.view.policy.revision, context: gated.context });
    },
  };
}

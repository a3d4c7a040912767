import type { PrimitiveKind, RequestContext } from '../core/context.js';
import type { Decision, DecisionReason } from '../core/policy/types.js';
import type { CatalogEntry } from './catalog.js';
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
  /** A fixed resource's URI, as registered (the URI the request named); absent otherwise. */
  readonly uri?: string | undefined;
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

// Listeners that read less than the whole context (mcp-gate/otel: scalars, and only the headers
// it was told to record) say which paths; their events then hold what the policy and those paths
// need. A decision log keeps the whole context: copying a request's eight headers and its claims
// cost more than recording the decision did.
const declaredReads = new WeakMap<object, readonly string[]>();
const readsByLog = new WeakMap<DecisionLog, readonly string[]>();

/**
 * Marks `listener` as reading only these context paths (`request.headers.x-tenant`, `auth.scopes`)
 * beyond the scalar fields every context has (method, ids, names); returns it.
 */
export function withContextReads<Listener extends (event: DecisionEvent) => void>(listener: Listener, reads: readonly string[]): Listener {
  declaredReads.set(listener, Object.freeze([...reads]));
  return listener;
}

/** The context paths a log's listener declared with `withContextReads`; undefined when it takes the whole context. */
export function contextReadsOf(log: DecisionLog): readonly string[] | undefined {
  return readsByLog.get(log);
}

/**
 * `onDecision` runs inside the request; if it throws, the request still gets its answer and the
 * error goes to `reportError`. The policy's `explain` runs only when someone listens, and only
 * when the listener first reads `reason`, `ruleId` or `message`: an unknown name decides nothing,
 * so explaining a hidden tool inside the request made it answer later than an unknown name
 * (14.5 µs in process before, 2–3 µs after: bench/decision-event-cost.ts). `mcp-gate serve --decision-log` reads the
 * event after the response is written (src/serve/deferred-queue.ts), so the cost leaves the
 * response path. `time` is formatted on first read too; it is still when the gate decided.
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

  const log: DecisionLog = {
    route(gated, route) {
      const entry = route.entry;
      if (entry === undefined) return;
      // What the request got, even if a nondeterministic policy explains otherwise a moment later.
      emit(decidedEvent(gated, entry, route.to !== 'hidden'));
    },
    list(gated, counts) {
      const { request } = gated.context;
      emit({
        time: new Date().toISOString(),
        requestId: gated.requestId,
        sessionId: request.sessionId,
        method: request.method,
        counts,
        allowed: true,
        reason: 'list',
        message: `${counts.visible} visible, ${counts.hidden} hidden`,
        policyRevision: gated.view.policy.revision,
        context: gated.context,
      });
    },
  };
  const reads = declaredReads.get(listener);
  if (reads !== undefined) readsByLog.set(log, reads);
  return log;
}

/**
 * The event of a call, get, read or completion. Its lazy fields are own enumerable getters, so
 * spreading, destructuring and JSON.stringify see them like the others; each is computed once.
 */
function decidedEvent(gated: GatedRequest, entry: CatalogEntry, allowed: boolean): DecisionEvent {
  // The view and the frozen context are the ones the request was decided with.
  const { view, context } = gated;
  const decidedAt = Date.now();
  let time: string | undefined;
  let decision: Decision | undefined;
  const explained = () => (decision ??= view.explain(context, entry));
  return {
    get time() {
      return (time ??= new Date(decidedAt).toISOString());
    },
    requestId: gated.requestId,
    sessionId: context.request.sessionId,
    method: context.request.method,
    primitive: { kind: entry.kind, name: entry.metadata.name },
    uri: entry.kind === 'resource' ? entry.metadata.uri : undefined,
    allowed,
    get reason() {
      return explained().reason;
    },
    get ruleId() {
      return explained().ruleId;
    },
    get message() {
      return explained().message;
    },
    policyRevision: view.policy.revision,
    context,
  };
}

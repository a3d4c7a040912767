import type { RequestContext } from '../core/context.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { Decision, DecisionReason } from '../core/policy/types.js';
import type { CatalogEntry } from './catalog.js';
import { decisionFlagsOf, type DecisionFlags } from './decision-flags.js';
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
  /**
   * The feature flags the policy reads, as this decision used them: each value, and which held
   * their declared default because resolving failed (and why). Absent when the policy reads none.
   */
  readonly flags?: DecisionFlags | undefined;
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
const fieldReaders = new WeakSet<object>();

/**
 * Marks `listener` as reading only these context paths (`request.headers.x-tenant`, `auth.scopes`)
 * beyond the scalar fields every context has (method, ids, names); returns it.
 */
export function withContextReads<Listener extends (event: DecisionEvent) => void>(listener: Listener, reads: readonly string[]): Listener {
  declaredReads.set(listener, Object.freeze([...reads]));
  return listener;
}

/**
 * Marks `listener` as reading events field by field only (never spreading, stringifying or
 * listing their keys), as mcp-gate/otel does; returns it. It then gets events whose lazy fields
 * are getters on a class's prototype rather than own properties (see `DecidedEvent`).
 */
export function withFieldReadsOnly<Listener extends (event: DecisionEvent) => void>(listener: Listener): Listener {
  fieldReaders.add(listener);
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
  const readsFieldsOnly = fieldReaders.has(listener);

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
      const event = new DecidedEvent(gated, entry, route.to !== 'hidden');
      emit(readsFieldsOnly ? event : withOwnFields(event));
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
        ...flagsField(decisionFlagsOf(gated.view.policy, gated.context)), // flags hook
      });
    },
  };
  const reads = declaredReads.get(listener);
  if (reads !== undefined) readsByLog.set(log, reads);
  return log;
}

/**
 * The event of a call, get, read or completion, as built inside the request: the explanation
 * (`reason`, `ruleId`, `message`) and `time` are getters on the prototype, each computed once.
 * Not an object literal with `get reason() {…}`: V8 gives every such object a shape of its own,
 * and building one added 1.7–2.6 µs to a 12–17 µs gated tools/call handler (bench/otel-call.ts,
 * the "listener" case: 1.14–1.15x the plain handler before, 1.03x as a class). Listeners that
 * may spread or stringify the event get `withOwnFields` of it.
 */
class DecidedEvent implements DecisionEvent {
  readonly requestId: string | number | undefined;
  readonly sessionId: string | undefined;
  readonly method: string;
  readonly primitive: { readonly kind: PrimitiveKind; readonly name: string };
  readonly uri: string | undefined;
  readonly allowed: boolean;
  readonly policyRevision: string;
  readonly context: RequestContext;
  // The view and the frozen context are the ones the request was decided with.
  readonly #view: GatedRequest['view'];
  readonly #entry: CatalogEntry;
  readonly #decidedAt = Date.now();
  #time: string | undefined;
  #decision: Decision | undefined;
  #flags: DecisionFlags | undefined | null = null;

  constructor(gated: GatedRequest, entry: CatalogEntry, allowed: boolean) {
    const { view, context } = gated;
    this.requestId = gated.requestId;
    this.sessionId = context.request.sessionId;
    this.method = context.request.method;
    this.primitive = { kind: entry.kind, name: entry.metadata.name };
    this.uri = entry.kind === 'resource' ? entry.metadata.uri : undefined;
    this.allowed = allowed;
    this.policyRevision = view.policy.revision;
    this.context = context;
    this.#view = view;
    this.#entry = entry;
  }

  get time(): string {
    return (this.#time ??= new Date(this.#decidedAt).toISOString());
  }

  /** Whether the policy decided on reads feature flags. */
  get readsFlags(): boolean {
    return this.#view.policy.flags !== undefined && Object.keys(this.#view.policy.flags).length > 0;
  }

  /** The flags the decision read (flags hook), computed on first read like the explanation. */
  get flags(): DecisionFlags | undefined {
    if (this.#flags === null) this.#flags = decisionFlagsOf(this.#view.policy, this.context);
    return this.#flags;
  }

  get reason(): DecisionReason {
    return this.#explained().reason;
  }

  get ruleId(): string | undefined {
    return this.#explained().ruleId;
  }

  get message(): string {
    return this.#explained().message;
  }

  #explained(): Decision {
    return (this.#decision ??= this.#view.explain(this.context, this.#entry));
  }
}

/**
 * The event with its lazy fields as own enumerable getters, so spreading, destructuring and
 * JSON.stringify see them like the others (docs/sdk.md logs `{ ...event }`); each is still
 * computed once, by the event underneath.
 */
function withOwnFields(event: DecidedEvent): DecisionEvent {
  const { requestId, sessionId, method, primitive, uri, allowed, policyRevision, context } = event;
  const own: DecisionEvent = {
    get time() {
      return event.time;
    },
    requestId,
    sessionId,
    method,
    primitive,
    uri,
    allowed,
    get reason() {
      return event.reason;
    },
    get ruleId() {
      return event.ruleId;
    },
    get message() {
      return event.message;
    },
    policyRevision,
    context,
  };
  // Flags hook: a field only for a policy that reads flags, so other events keep their keys.
  if (event.readsFlags) Object.defineProperty(own, 'flags', { get: () => event.flags, enumerable: true });
  return own;
}

/** `flags` as an own field when the policy reads any (list events are plain objects). */
function flagsField(flags: DecisionFlags | undefined): Pick<DecisionEvent, 'flags'> {
  return flags === undefined ? {} : { flags };
}

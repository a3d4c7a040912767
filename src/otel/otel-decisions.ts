import {
  context,
  diag,
  metrics,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type MeterProvider,
  type Span,
  type TracerProvider,
} from '@opentelemetry/api';
import { withContextReads, withFieldReadsOnly, type DecisionEvent } from '../adapter/decision-events.js';
import { PolicyOptionError } from '../core/errors.js';
import { isCredentialHeader } from '../serve/decision-log.js';
import { deferToIdle } from '../serve/deferred-queue.js';
import { evaluationAttributes, evaluationEventName, requestAttributes, spanNameOf, variantOf } from './attributes.js';

/** The instrumentation scope of the tracer and meter mcp-gate/otel uses. */
export const instrumentationScope = 'mcp-gate';

/** What `otelDecisions` records beyond the decision itself; everything here is off by default. */
export interface OtelDecisionsOptions {
  /** Where spans go; default the global tracer provider (`trace.setGlobalTracerProvider`, or an SDK's `register()`). */
  tracerProvider?: TracerProvider;
  /** Where metrics go; default the global meter provider at the first decision. */
  meterProvider?: MeterProvider;
  /**
   * Request headers (case-insensitive) whose values become `http.request.header.<name>` on the
   * span. Credential headers (authorization, cookie, mcp-session-id, `*-token`, …) are recorded as
   * `[redacted]` unless `recordCredentialHeaders` is set.
   */
  headers?: readonly string[];
  /** DANGER: record the values of credential headers named in `headers` (bearer tokens, cookies). */
  recordCredentialHeaders?: boolean;
  /** Record `mcp.session.id`. Off by default: on Streamable HTTP the id is what routes requests to a session. */
  sessionId?: boolean;
  /** Record `feature_flag.context.id`: the token's subject, else its client id. */
  auth?: boolean;
  /** Your own listener (a decision log), called after the telemetry is recorded. */
  onDecision?: (event: DecisionEvent) => void;
}

/** What `otelDecisions` returns: the gate option to spread into `gate(server, { policy, ...otelDecisions() })`. */
export interface OtelDecisionsOption {
  /** Records one decision; pass it as the gate's `onDecision`. */
  readonly onDecision: (event: DecisionEvent) => void;
  /** Records the decisions still queued now; call it before shutting the OTel SDK down. */
  flush(): void;
}

/** A decision whose span and metrics are recorded after the answer went out. */
interface QueuedDecision {
  readonly event: DecisionEvent;
  /** The active context when the gate decided (no span in it), the parent of the decision's span. */
  readonly parent: Context;
  /** When the gate decided, in `performance.now()` milliseconds (the SDK takes those as span times). */
  readonly decidedAt: number;
}

interface Instruments {
  readonly decisions: Counter;
  readonly listedItems: Histogram;
  readonly visibleItems: Histogram;
}

const itemBuckets = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/**
 * Records the gate's decisions with OpenTelemetry: a `feature_flag.evaluation` event per call,
 * get, read or completion on the active span (or on a span of its own), `mcp_gate.decisions` and list histograms.
 */
export function otelDecisions(options: OtelDecisionsOptions = {}): OtelDecisionsOption {
  if (options === null || typeof options !== 'object') throw new PolicyOptionError('mcp-gate/otel: options must be an object');
  const { onDecision: next } = options;
  if (next !== undefined && typeof next !== 'function') throw new PolicyOptionError(`mcp-gate/otel: option "onDecision" must be a function, got ${typeof next}`);
  const headerAttributes = readHeaderOption(options);
  const recordSessionId = options.sessionId === true;
  const recordAuth = options.auth === true;
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(instrumentationScope);
  let instruments: Instruments | undefined;
  // Created at the first decision, not here: the metrics API has no proxy provider, so a meter
  // taken before the application registers its SDK would stay a no-op forever.
  const instrumentsNow = () => (instruments ??= createInstruments(options.meterProvider ?? metrics.getMeterProvider()));

  /** The request's attributes and the evaluation event, as one decision records them on any span. */
  function recordOn(span: Span, event: DecisionEvent, primitive: NonNullable<DecisionEvent['primitive']>): void {
    const attributes = requestAttributes(event);
    if (recordSessionId && event.sessionId !== undefined) attributes['mcp.session.id'] = event.sessionId;
    if (headerAttributes !== undefined) addHeaders(attributes, event, headerAttributes);
    const evaluation = evaluationAttributes(event, primitive);
    if (recordAuth) {
      const { subject, clientId } = event.context.auth;
      const contextId = subject ?? clientId;
      if (contextId !== undefined) evaluation['feature_flag.context.id'] = contextId;
    }
    span.setAttributes(attributes);
    span.addEvent(evaluationEventName, evaluation);
  }

  function countDecision(event: DecisionEvent): void {
    const counted: Attributes = { 'mcp.method.name': event.method, 'mcp_gate.decision': variantOf(event), 'mcp_gate.reason': event.reason };
    if (event.ruleId !== undefined) counted['mcp_gate.rule.id'] = event.ruleId;
    instrumentsNow().decisions.add(1, counted);
  }

  // Off the response path, as serve's decision log is (src/serve/deferred-queue.ts): starting a
  // span in the OTel JS SDK took 8-10 µs, and the policy's explain runs when `reason` is read;
  // done inside the request, both made a hidden call answer later than an unknown name, which
  // records nothing. The span keeps the time the gate decided.
  const queue = deferToIdle(
    function recordQueued({ event, parent, decidedAt }: QueuedDecision) {
      const primitive = event.primitive!;
      // No span was active: one for the decision alone. INTERNAL, not SERVER: it covers the
      // gate's decision, not the time from request to answer, which a server span stands for.
      const span = tracer.startSpan(spanNameOf(event), { kind: SpanKind.INTERNAL, startTime: decidedAt }, parent);
      recordOn(span, event, primitive);
      if (!event.allowed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(decidedAt);
      countDecision(event);
    },
    (error) => diag.error('mcp-gate/otel: recording a decision failed', error),
  );

  const recordDecision = function recordDecision(event: DecisionEvent): void {
    const primitive = event.primitive;
    if (primitive !== undefined) {
      const current = context.active();
      const active = trace.getSpan(current);
      if (active === undefined) {
        queue({ event, parent: current, decidedAt: performance.now() });
      } else {
        // Someone's span (an MCP or HTTP instrumentation's) ends with the answer: record now.
        if (active.isRecording()) recordOn(active, event, primitive);
        countDecision(event);
      }
    } else if (event.counts !== undefined) {
      const { listedItems, visibleItems } = instrumentsNow();
      const listed: Attributes = { 'mcp.method.name': event.method };
      listedItems.record(event.counts.visible + event.counts.hidden, listed);
      visibleItems.record(event.counts.visible, listed);
    }
    next?.(event);
  };
  // Without a listener of yours, the gate builds only what the policy and the recorded headers
  // need, not the whole context a decision log gets (the copy cost more than the recording), and
  // events that only read well by field (cheaper to build: decision-events.ts, DecidedEvent).
  const headerReads = [...(headerAttributes?.keys() ?? [])].map((name) => `request.headers.${name}`);
  return {
    onDecision: next === undefined ? withFieldReadsOnly(withContextReads(recordDecision, headerReads)) : recordDecision,
    flush: () => queue.flush(),
  };
}

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(instrumentationScope);
  const advice = { explicitBucketBoundaries: itemBuckets };
  return {
    decisions: meter.createCounter('mcp_gate.decisions', { unit: '{decision}', description: 'Decisions on calls, gets, reads and completions of named primitives' }),
    listedItems: meter.createHistogram('mcp_gate.list.items', { unit: '{item}', description: 'Registrations a list request decided on (visible and hidden)', advice }),
    visibleItems: meter.createHistogram('mcp_gate.list.visible_items', { unit: '{item}', description: 'Registrations a list request showed', advice }),
  };
}

/** Header name (lower case) → attribute name and whether its value is withheld. */
type HeaderAttributes = ReadonlyMap<string, { readonly attribute: string; readonly redacted: boolean }>;

function readHeaderOption(options: OtelDecisionsOptions): HeaderAttributes | undefined {
  const { headers } = options;
  if (headers === undefined) return undefined;
  if (!Array.isArray(headers) || headers.some((name) => typeof name !== 'string' || name.trim() === '')) {
    throw new PolicyOptionError('mcp-gate/otel: option "headers" must be an array of header names');
  }
  const recordCredentials = options.recordCredentialHeaders === true;
  const names = headers.map((name: string) => name.trim().toLowerCase());
  return new Map(names.map((name) => [name, { attribute: `http.request.header.${name}`, redacted: !recordCredentials && isCredentialHeader(name) }]));
}

/** The conventions' `http.request.header.<key>`: a string array, here one joined value. */
function addHeaders(attributes: Attributes, event: DecisionEvent, headers: HeaderAttributes): void {
  const sent = event.context.request.headers;
  for (const [name, { attribute, redacted }] of headers) {
    const value = sent[name];
    if (value !== undefined) attributes[attribute] = [redacted ? '[redacted]' : value];
  }
}

import { metrics, SpanKind, SpanStatusCode, trace, type Attributes, type Counter, type Histogram, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import type { DecisionEvent } from '../adapter/decision-events.js';
import { PolicyOptionError } from '../core/errors.js';
import { isCredentialHeader } from '../serve/decision-log.js';
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

  function recordSpan(event: DecisionEvent, primitive: NonNullable<DecisionEvent['primitive']>): void {
    const active = trace.getActiveSpan();
    if (active !== undefined && !active.isRecording()) return;
    const attributes = requestAttributes(event);
    if (recordSessionId && event.sessionId !== undefined) attributes['mcp.session.id'] = event.sessionId;
    if (headerAttributes !== undefined) addHeaders(attributes, event, headerAttributes);
    const evaluation = evaluationAttributes(event, primitive);
    if (recordAuth) {
      const { subject, clientId } = event.context.auth;
      const contextId = subject ?? clientId;
      if (contextId !== undefined) evaluation['feature_flag.context.id'] = contextId;
    }
    if (active !== undefined) {
      active.setAttributes(attributes);
      active.addEvent(evaluationEventName, evaluation);
      return;
    }
    // No span: one for the decision alone. INTERNAL, not SERVER: it ends here, when the gate has
    // decided, not when the answer is sent, which is the time a server span stands for.
    const span = tracer.startSpan(spanNameOf(event), { kind: SpanKind.INTERNAL, attributes });
    span.addEvent(evaluationEventName, evaluation);
    if (!event.allowed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }

  return {
    onDecision: function recordDecision(event) {
      const primitive = event.primitive;
      const { decisions, listedItems, visibleItems } = instrumentsNow();
      if (primitive !== undefined) {
        recordSpan(event, primitive);
        const counted: Attributes = { 'mcp.method.name': event.method, 'mcp_gate.decision': variantOf(event), 'mcp_gate.reason': event.reason };
        if (event.ruleId !== undefined) counted['mcp_gate.rule.id'] = event.ruleId;
        decisions.add(1, counted);
      } else if (event.counts !== undefined) {
        const listed: Attributes = { 'mcp.method.name': event.method };
        listedItems.record(event.counts.visible + event.counts.hidden, listed);
        visibleItems.record(event.counts.visible, listed);
      }
      next?.(event);
    },
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

// `mcp-gate serve --otel` and `proxy --otel`: the OpenTelemetry SDK with the standard OTLP/HTTP exporters, set up from
// the usual environment variables. Every OTel package is an optional peer, loaded here only when
// --otel is given; a missing one is one line naming the packages to install (exit code 3).
import type { DecisionEvent } from '../adapter/decision-events.js';
import { InputError } from './io.js';
import { importPeers } from './peers.js';

/** The OTLP/HTTP encodings the exporters speak (`OTEL_EXPORTER_OTLP_PROTOCOL`); gRPC is not offered. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What serve or proxy keeps of the telemetry it started (the name is serve's, which came first). */
export interface ServeTelemetry {
  /** The gate's `onDecision`: records the decision, then calls `next` (the decision log). */
  readonly onDecision: (event: DecisionEvent) => void;
  /** Where and how it exports, for the startup message. */
  readonly description: string;
  /** Exports what is buffered and stops; the command awaits it before exiting. */
  shutdown(): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The protocol of one signal: its own variable, else the shared one, else protobuf (the OTel default). */
export function otlpProtocol(env: Env, signal: 'TRACES' | 'METRICS', needer: string): OtlpProtocol {
  const variable = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] !== undefined ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = (env[variable] ?? 'http/protobuf').trim();
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new InputError(`${needer}: ${variable}="${value}" is not supported; --otel exports over OTLP/HTTP: use http/protobuf (the default) or http/json`);
}

const defaultMetricIntervalMs = 60_000;

/**
 * Loads the SDK and the exporters for the configured protocols, registers the providers as the
 * global ones (so a --server module's own spans join the same pipeline), and returns the
 * decision listener. The exporters read `OTEL_EXPORTER_OTLP_*` (endpoint, headers, timeout) and the
 * resource `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` themselves.
 */
export async function startServeTelemetry(needer: string, env: Env, next: ((event: DecisionEvent) => void) | undefined): Promise<ServeTelemetry> {
  const tracesProtocol = otlpProtocol(env, 'TRACES', needer);
  const metricsProtocol = otlpProtocol(env, 'METRICS', needer);
  const intervalText = env['OTEL_METRIC_EXPORT_INTERVAL'];
  const metricIntervalMs = intervalText === undefined ? defaultMetricIntervalMs : Number(intervalText);
  if (!(Number.isInteger(metricIntervalMs) && metricIntervalMs > 0))
    throw new InputError(`${needer}: OTEL_METRIC_EXPORT_INTERVAL must be a positive number of milliseconds, got "${intervalText}"`);

  const [api, traceSdk, metricsSdk, resources, traceExporters, metricExporters, otel] = await importPeers(`${needer} --otel`, [
    ['@opentelemetry/api', () => import('@opentelemetry/api')],
    ['@opentelemetry/sdk-trace-base', () => import('@opentelemetry/sdk-trace-base')],
    ['@opentelemetry/sdk-metrics', () => import('@opentelemetry/sdk-metrics')],
    ['@opentelemetry/resources', () => import('@opentelemetry/resources')],
    tracesProtocol === 'http/json'
      ? ['@opentelemetry/exporter-trace-otlp-http', () => import('@opentelemetry/exporter-trace-otlp-http')]
      : ['@opentelemetry/exporter-trace-otlp-proto', () => import('@opentelemetry/exporter-trace-otlp-proto')],
    metricsProtocol === 'http/json'
      ? ['@opentelemetry/exporter-metrics-otlp-http', () => import('@opentelemetry/exporter-metrics-otlp-http')]
      : ['@opentelemetry/exporter-metrics-otlp-proto', () => import('@opentelemetry/exporter-metrics-otlp-proto')],
    // mcp-gate/otel itself imports @opentelemetry/api, checked above.
    ['@opentelemetry/api', () => import('../otel/index.js')],
  ] as const);

  // OTEL_SERVICE_NAME (read by the env detector) wins over our default name.
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'mcp-gate' }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracerProvider = new traceSdk.BasicTracerProvider({ resource, spanProcessors: [new traceSdk.BatchSpanProcessor(new traceExporters.OTLPTraceExporter())] });
  const meterProvider = new metricsSdk.MeterProvider({
    resource,
    readers: [new metricsSdk.PeriodicExportingMetricReader({ exporter: new metricExporters.OTLPMetricExporter(), exportIntervalMillis: metricIntervalMs })],
  });
  api.trace.setGlobalTracerProvider(tracerProvider);
  api.metrics.setGlobalMeterProvider(meterProvider);
  const decisions = otel.otelDecisions({ tracerProvider, meterProvider, ...(next === undefined ? {} : { onDecision: next }) });
  const protocols = tracesProtocol === metricsProtocol ? tracesProtocol : `traces ${tracesProtocol}, metrics ${metricsProtocol}`;
  const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? 'http://localhost:4318';
  return {
    onDecision: decisions.onDecision,
    description: `OTLP/HTTP (${protocols}) to ${endpoint}, service ${String(resource.attributes['service.name'])}`,
    async shutdown() {
      decisions.flush();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

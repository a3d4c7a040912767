import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** The real OTel SDK, exporting to memory: spans as they end, metrics when `collect()` asks. */
export interface Telemetry {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  /** The spans ended so far, once decisions queued by the gate (recorded off the response path) are in. */
  spans(): Promise<readonly ReadableSpan[]>;
  /** The spans ended so far, without waiting. */
  spansNow(): readonly ReadableSpan[];
  /** Every data point of a metric, after a flush. */
  points(name: string): Promise<DataPoint<number | Histogram>[]>;
  shutdown(): Promise<void>;
}

export function createTelemetry(): Telemetry {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // A long interval: the tests flush when they want the points.
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spansNow: () => spanExporter.getFinishedSpans(),
    async spans() {
      await nextTurn();
      return spanExporter.getFinishedSpans();
    },
    async points(name) {
      await nextTurn();
      await reader.forceFlush();
      const last = metricExporter.getMetrics().at(-1);
      const metrics = last?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
      return metrics.filter((metric) => metric.descriptor.name === name).flatMap((metric) => metric.dataPoints as DataPoint<number | Histogram>[]);
    },
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** The attributes of a span's `feature_flag.evaluation` events. */
export function evaluations(span: ReadableSpan): Record<string, unknown>[] {
  return span.events.filter((event) => event.name === 'feature_flag.evaluation').map((event) => ({ ...event.attributes }));
}

/** After the immediates queued now: mcp-gate/otel records decisions in one, after the answer. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

// What recording decisions with OpenTelemetry costs a call: the demo server behind
// policies/demo.json, gated, against the same gate with mcp-gate/otel's otelDecisions() and the
// real OTel SDK (a span, a feature_flag.evaluation event and a counter per call, batched to an
// exporter that drops them). An A/A control (two identical plain gates) shows the noise.
// mcp-gate/otel records a decision's span after the answer (in an immediate): the latency cases
// time each call to its answer, the recording running between calls; the "+turn" cases put the
// next event-loop turn inside the time, so the recording is counted (what it costs the process).
// The wire cases run the same call through the wire binding (what `mcp-gate proxy` runs on), the
// demo server as its upstream over the in-memory transport.
// Run: npm run bench:otel (target: otel/plain <= 1.05x for a client round trip).
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { createDemoServer, demoMetadata } from '../src/demo/demo-server.js';
import { otelDecisions } from '../src/otel/index.js';
import { withContextReads, withFieldReadsOnly } from '../src/adapter/decision-events.js';
import { gate } from '../src/sdk/index.js';
import { createWireGate, type WireConnection } from '../src/wire/index.js';
import {
  assertSameJson,
  connectClient,
  createHttpExtra,
  formatNs,
  httpRequestInfo,
  measureAsync,
  storedHandler,
  writeResults,
  type AsyncCase,
  type AsyncResult,
} from './sdk-harness.js';

const policy = compilePolicy(JSON.parse(readFileSync('policies/demo.json', 'utf8')));

// Exporters that count and drop: the SDK's batching and encoding-free export path, no I/O.
let exportedSpans = 0;
const spanExporter: SpanExporter = {
  export(spans, done) {
    exportedSpans += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const metricExporter: PushMetricExporter = {
  export: (_metrics, done) => done({ code: 0 }),
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spanExporter)] });
const meterProvider = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 1000 })] });

function demoServer(withOtel: boolean | 'listener') {
  const server = createDemoServer();
  const decisions =
    withOtel === 'listener' ? { onDecision: withFieldReadsOnly(withContextReads(() => undefined, [])) } : withOtel ? otelDecisions({ tracerProvider, meterProvider }) : {};
  gate(server, { policy, metadata: demoMetadata, ...decisions });
  return server;
}

const [plainServer, controlServer, otelServer] = [demoServer(false), demoServer(false), demoServer(true)];
const params = { name: 'search', arguments: { query: 'otel' } };
const request = { method: 'tools/call', params };
const handlers = {
  plain: storedHandler(plainServer, 'tools/call'),
  control: storedHandler(controlServer, 'tools/call'),
  otel: storedHandler(otelServer, 'tools/call'),
  // The gate's own share: a listener that does nothing, declared as otelDecisions() declares its own, costs the event.
  listener: storedHandler(demoServer('listener'), 'tools/call'),
};
const clients = {
  plain: await connectClient(demoServer(false), { http: true }),
  control: await connectClient(demoServer(false), { http: true }),
  otel: await connectClient(demoServer(true), { http: true }),
};
const callRequest = { method: 'tools/call' as const, params };

/** A wire gate in front of the demo server; `close` ends the upstream session. */
async function wireConnection(withOtel: boolean): Promise<{ connection: WireConnection; close(): Promise<void> }> {
  const upstream = createDemoServer();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await upstream.connect(serverTransport);
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientTransport);
  const wire = createWireGate({ policy, overlay: { metadata: demoMetadata }, ...(withOtel ? otelDecisions({ tracerProvider, meterProvider }) : {}) });
  return { connection: await wire.attach(client, { notify: async () => undefined, isOpen: () => true }), close: () => client.close() };
}
const wires = { plain: await wireConnection(false), control: await wireConnection(false), otel: await wireConnection(true) };
/** What `mcp-gate proxy` hands the wire binding for an HTTP request (src/proxy/proxy-session.ts). */
const wireInput = { request: { method: 'tools/call', headers: httpRequestInfo().headers, endpoint: '/mcp', sessionId: 'bench-session' }, client: { name: 'bench' } };
const wireCall = (wire: { connection: WireConnection }, id: number) => wire.connection.handle({ method: 'tools/call', params, id }, wireInput);

// Correctness first: every case answers alike, and the otel case records what it should.
const expected = await handlers.plain(request, createHttpExtra(1));
for (const [label, handler] of Object.entries(handlers)) assertSameJson(`handler ${label}`, await handler(request, createHttpExtra(1)), expected);
const expectedAnswer = await clients.plain.request(callRequest, CallToolResultSchema);
for (const [label, client] of Object.entries(clients)) assertSameJson(`client ${label}`, await client.request(callRequest, CallToolResultSchema), expectedAnswer);
for (const [label, wire] of Object.entries(wires)) assertSameJson(`wire ${label}`, await wireCall(wire, 1), expectedAnswer);
await new Promise((resolve) => setImmediate(resolve));
await tracerProvider.forceFlush();
if (exportedSpans !== 3) throw new Error(`expected the otel gates to export 3 spans, got ${exportedSpans}; not timing a gate that records nothing`);

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Latency: each call timed alone, from the request to its answer, then one event-loop turn
 * outside the time (where mcp-gate/otel records what it queued, as a server does between
 * requests). Cases interleave, a different one first each round; p50 of single calls.
 */
async function measureLatency(cases: readonly AsyncCase[], rounds: number, warmup: number): Promise<AsyncResult[]> {
  const timings: number[][] = cases.map(() => []);
  for (let round = 0; round < warmup + rounds; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const index = (round + offset) % cases.length;
      const start = process.hrtime.bigint();
      await cases[index]!.run();
      const elapsed = Number(process.hrtime.bigint() - start);
      if (round >= warmup) timings[index]!.push(elapsed);
      await nextTurn();
    }
  }
  return cases.map(({ id }, index) => {
    const sorted = timings[index]!.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.round((sorted.length - 1) * q)]!;
    return { id, samples: sorted.length, p50: at(0.5), p25: at(0.25), p75: at(0.75) };
  });
}

let requestId = 1;
const handlerResults = await measureLatency(
  [
    { id: 'handler.plain', run: () => handlers.plain(request, createHttpExtra(++requestId)) },
    { id: 'handler.plain-aa', run: () => handlers.control(request, createHttpExtra(++requestId)) },
    { id: 'handler.otel', run: () => handlers.otel(request, createHttpExtra(++requestId)) },
    { id: 'handler.listener', run: () => handlers.listener(request, createHttpExtra(++requestId)) },
  ],
  20_000,
  2_000,
);
const clientResults = await measureLatency(
  [
    { id: 'client.plain', run: () => clients.plain.request(callRequest, CallToolResultSchema) },
    { id: 'client.plain-aa', run: () => clients.control.request(callRequest, CallToolResultSchema) },
    { id: 'client.otel', run: () => clients.otel.request(callRequest, CallToolResultSchema) },
  ],
  10_000,
  2_000,
);
const wireResults = await measureLatency(
  [
    { id: 'wire.plain', run: () => wireCall(wires.plain, ++requestId) },
    { id: 'wire.plain-aa', run: () => wireCall(wires.control, ++requestId) },
    { id: 'wire.otel', run: () => wireCall(wires.otel, ++requestId) },
  ],
  10_000,
  2_000,
);
// What the process spends per call, the deferred recording included: one turn after each call, inside the time.
const totalResults = await measureAsync(
  [
    { id: 'client.plain+turn', run: () => clients.plain.request(callRequest, CallToolResultSchema).then(nextTurn) },
    { id: 'client.otel+turn', run: () => clients.otel.request(callRequest, CallToolResultSchema).then(nextTurn) },
  ],
  { warmup: 2000, samples: 41, batch: 300 },
);

const allResults = [...handlerResults, ...clientResults, ...wireResults, ...totalResults];
const p50 = (id: string) => allResults.find((result) => result.id === id)!.p50;
const ratios = {
  handlerAA: p50('handler.plain-aa') / p50('handler.plain'),
  handlerOtel: p50('handler.otel') / p50('handler.plain'),
  handlerListener: p50('handler.listener') / p50('handler.plain'),
  clientAA: p50('client.plain-aa') / p50('client.plain'),
  clientOtel: p50('client.otel') / p50('client.plain'),
  wireAA: p50('wire.plain-aa') / p50('wire.plain'),
  wireOtel: p50('wire.otel') / p50('wire.plain'),
  clientOtelWithRecording: p50('client.otel+turn') / p50('client.plain+turn'),
};
console.log(`tools/call "search" on the demo server, HTTP-shaped requests (p50, same run, interleaved; load ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
for (const result of allResults) console.log(`  ${result.id.padEnd(18)} ${formatNs(result.p50).padStart(10)}`);
console.log(
  `  server handler: A/A = ${ratios.handlerAA.toFixed(3)}x, otel/plain = ${ratios.handlerOtel.toFixed(3)}x (+${formatNs(p50('handler.otel') - p50('handler.plain'))}), of which the gate's event (an empty listener) ${ratios.handlerListener.toFixed(3)}x`,
);
console.log(`  client round trip over InMemoryTransport: A/A = ${ratios.clientAA.toFixed(3)}x, otel/plain = ${ratios.clientOtel.toFixed(3)}x (target <= 1.05x)`);
console.log(`  wire binding, upstream over InMemoryTransport: A/A = ${ratios.wireAA.toFixed(3)}x, otel/plain = ${ratios.wireOtel.toFixed(3)}x`);
console.log(
  `  the same with the deferred recording timed (+turn): otel/plain = ${ratios.clientOtelWithRecording.toFixed(3)}x (+${formatNs(p50('client.otel+turn') - p50('client.plain+turn'))} per call)`,
);
writeResults('otel-call.json', {
  bench: 'otel-call',
  node: process.version,
  policyRevision: policy.revision,
  results: allResults,
  ratios,
});
await Promise.all([...Object.values(clients).map((client) => client.close()), ...Object.values(wires).map((wire) => wire.close())]);
await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);

import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { repositoryRoot, waitFor } from '../serve/harness.js';
import { attributesOf, startOtlpReceiver, type OtlpKeyValue, type OtlpReceiver, type ReceivedExport } from './otlp-receiver.js';

// `mcp-gate serve --otel` as a user runs it (a process, from dist/, built once per run), exporting to an
// OTLP/HTTP receiver this test runs on 127.0.0.1 (./otlp-receiver.ts, shared with proxy-otel).

beforeAll(async () => expect(await buildDistOnce(), 'npm run build --noCheck').toBe(''), 180_000);

const children: ChildProcess[] = [];
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))]);
}

/** Serves the demo with --otel, makes a visible and a hidden call and a list, stops it, and returns what the receiver got. */
async function serveAndCall(env: Record<string, string>): Promise<{ received: ReceivedExport[]; stderr: string }> {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const child = spawn(process.execPath, [builtBin, 'serve', '--port', '0', '--policy', 'policies/demo.json', '--otel'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gate-under-test', OTEL_BSP_SCHEDULE_DELAY: '50', ...env },
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await waitFor('"listening on"', () => /listening on (\S+)/.exec(stderr)?.[1], 45_000).catch((error: unknown) => {
    throw new Error(`${String(error)}; stderr:\n${stderr}`);
  });
  const client = new Client({ name: 'otel-test', version: '1.0.0' });
  await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(url))), 10_000, 'connect');
  await client.listTools();
  await client.callTool({ name: 'search', arguments: { query: 'otel' } });
  await client.callTool({ name: 'deploy_preview', arguments: { branch: 'main' } });
  await client.close();
  // Stopping flushes both providers: every span and the metrics reach the receiver before exit.
  child.kill('SIGTERM');
  expect(await withTimeout(exited, 15_000, 'exit after SIGTERM')).toBe(0);
  return { received: receiver.received, stderr };
}

describe('mcp-gate serve --otel', () => {
  it('exports decisions over OTLP/HTTP JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json', async () => {
    const { received, stderr } = await serveAndCall({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect(stderr).toContain(`mcp-gate serve: telemetry: OTLP/HTTP (http/json) to http://127.0.0.1:`);
    const traces = received.filter((post) => post.path === '/v1/traces');
    const metrics = received.filter((post) => post.path === '/v1/metrics');
    expect(traces.length).toBeGreaterThan(0);
    expect(metrics.length).toBeGreaterThan(0);
    for (const post of [...traces, ...metrics]) expect(post.contentType).toBe('application/json');

    type Span = { name: string; kind: number; attributes: OtlpKeyValue[]; events: { name: string; attributes: OtlpKeyValue[] }[] };
    type TraceBody = { resourceSpans: { resource: { attributes: OtlpKeyValue[] }; scopeSpans: { scope: { name: string }; spans: Span[] }[] }[] };
    const bodies = traces.map((post) => JSON.parse(post.body.toString('utf8')) as TraceBody);
    expect(attributesOf(bodies[0]!.resourceSpans[0]!.resource.attributes)['service.name']).toBe('gate-under-test');
    const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
    expect(spans.map((span) => span.name).sort()).toEqual(['tools/call deploy_preview', 'tools/call search']);
    const hidden = spans.find((span) => span.name === 'tools/call deploy_preview')!;
    expect(attributesOf(hidden.attributes)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'deploy_preview', 'rpc.response.status_code': '-32602' });
    expect(hidden.events.map((event) => [event.name, attributesOf(event.attributes)])).toEqual([
      [
        'feature_flag.evaluation',
        {
          'feature_flag.key': 'tool:deploy_preview',
          'feature_flag.provider.name': 'mcp-gate',
          'feature_flag.version': expect.stringMatching(/\S/),
          'feature_flag.result.variant': 'hidden',
          'feature_flag.result.reason': expect.stringMatching(/^(targeting_match|default)$/),
          'mcp_gate.reason': expect.any(String),
          ...(attributesOf(hidden.events[0]!.attributes)['mcp_gate.rule.id'] === undefined ? {} : { 'mcp_gate.rule.id': expect.any(String) }),
        },
      ],
    ]);

    type MetricBody = {
      resourceMetrics: { scopeMetrics: { metrics: { name: string; sum?: { dataPoints: { attributes: OtlpKeyValue[]; asInt?: string | number }[] } }[] }[] }[];
    };
    const exported = metrics.flatMap((post) =>
      (JSON.parse(post.body.toString('utf8')) as MetricBody).resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics)),
    );
    expect(new Set(exported.map((metric) => metric.name))).toEqual(new Set(['mcp_gate.decisions', 'mcp_gate.list.items', 'mcp_gate.list.visible_items']));
    const decisions = exported
      .filter((metric) => metric.name === 'mcp_gate.decisions')
      .at(-1)!
      .sum!.dataPoints.map((point) => attributesOf(point.attributes)['mcp_gate.decision']);
    expect(decisions.sort()).toEqual(['hidden', 'visible']);
  }, 120_000);

  it('exports over OTLP/HTTP protobuf by default', async () => {
    const { received, stderr } = await serveAndCall({});
    expect(stderr).toContain('mcp-gate serve: telemetry: OTLP/HTTP (http/protobuf)');
    const traces = received.filter((post) => post.path === '/v1/traces');
    const metrics = received.filter((post) => post.path === '/v1/metrics');
    expect(traces.length).toBeGreaterThan(0);
    expect(metrics.length).toBeGreaterThan(0);
    for (const post of [...traces, ...metrics]) expect(post.contentType).toBe('application/x-protobuf');
    // Protobuf keeps strings as UTF-8 bytes: the attribute names and values are in the payload.
    const traceBytes = Buffer.concat(traces.map((post) => post.body)).toString('latin1');
    for (const text of [
      'tools/call deploy_preview',
      'feature_flag.evaluation',
      'feature_flag.key',
      'tool:deploy_preview',
      'feature_flag.result.variant',
      'hidden',
      'visible',
      'gate-under-test',
      '-32602',
    ]) {
      expect(traceBytes).toContain(text);
    }
    const metricBytes = Buffer.concat(metrics.map((post) => post.body)).toString('latin1');
    for (const text of ['mcp_gate.decisions', 'mcp_gate.list.items', 'mcp_gate.list.visible_items', 'mcp_gate.decision']) expect(metricBytes).toContain(text);
  }, 120_000);

  it('refuses an OTLP protocol it cannot export with, naming the variable', async () => {
    const child = spawn(process.execPath, [builtBin, 'serve', '--port', '0', '--policy', 'policies/demo.json', '--otel'], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await withTimeout(new Promise<number | null>((resolve) => child.once('exit', resolve)), 45_000, 'exit');
    expect(stderr).toBe('mcp-gate serve: OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported; --otel exports over OTLP/HTTP: use http/protobuf (the default) or http/json\n');
    expect(code).toBe(1);
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { answerOf } from '../bindings/bindings.js';
import { repositoryRoot, waitFor } from '../serve/harness.js';
import { attributesOf, startOtlpReceiver, type OtlpKeyValue, type OtlpReceiver, type ReceivedExport } from './otlp-receiver.js';

// `mcp-gate proxy --otel` as a user runs it (a process from dist/), in front of the recording
// upstream over stdio, exporting to an OTLP/HTTP receiver on 127.0.0.1. One proxy process for the
// file: traces over http/json (decoded and checked field by field), metrics over the default
// http/protobuf (checked for the names in the payload). test/otel/serve-otel.test.ts covers each
// protocol for both signals on serve; both commands share src/cli/otel-runtime.ts.

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))]);

let receiver: OtlpReceiver;
let stderr = '';
const answers: Record<string, unknown> = {};

beforeAll(async () => {
  expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
  receiver = await startOtlpReceiver();
  const child = spawn(
    process.execPath,
    [
      builtBin,
      'proxy',
      '--port',
      '0',
      '--policy',
      'test/proxy/fixtures/admin-only.policy.json',
      '--overlay',
      'test/proxy/fixtures/recording.overlay.json',
      '--upstream-cmd',
      `"${process.execPath}" test/wire/recording-upstream.mjs`,
      '--otel',
    ],
    {
      cwd: repositoryRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        // Only the OTel settings of this test: none the environment running it may carry.
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_'))),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'proxy-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
    },
  );
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await waitFor('"listening on"', () => /listening on (\S+)/.exec(stderr)?.[1], 45_000);
    const client = new Client({ name: 'otel-proxy-test', version: '1.0.0' });
    await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(url))), 10_000, 'connect');
    answers['list'] = await client.listTools();
    answers['visible'] = await answerOf(client.callTool({ name: 'public-echo', arguments: { message: 'hi' } }));
    answers['hidden'] = await answerOf(client.callTool({ name: 'secret-drop', arguments: { table: 'users' } }));
    answers['unknown'] = await answerOf(client.callTool({ name: 'never-registered', arguments: { table: 'users' } }));
    answers['hiddenPrompt'] = await answerOf(client.getPrompt({ name: 'secret-prompt' }));
    answers['resource'] = await answerOf(client.readResource({ uri: 'test://docs/public' }));
    await client.close();
  } finally {
    // Stopping flushes both providers: every span and the metrics reach the receiver before exit.
    child.kill('SIGTERM');
  }
  expect(await withTimeout(exited, 15_000, 'exit after SIGTERM'), stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
});

const postsTo = (path: string): ReceivedExport[] => receiver.received.filter((post) => post.path === path);

type Span = { name: string; kind: number; status?: { code?: number }; attributes: OtlpKeyValue[]; events: { name: string; attributes: OtlpKeyValue[] }[] };
type TraceBody = { resourceSpans: { resource: { attributes: OtlpKeyValue[] }; scopeSpans: { scope: { name: string }; spans: Span[] }[] }[] };

function exportedSpans(): { service: unknown; spans: Span[] } {
  const bodies = postsTo('/v1/traces').map((post) => JSON.parse(post.body.toString('utf8')) as TraceBody);
  return {
    service: attributesOf(bodies[0]?.resourceSpans[0]?.resource.attributes)['service.name'],
    spans: bodies.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))),
  };
}

describe('mcp-gate proxy --otel', () => {
  it('says where it exports, with the protocol of each signal', () => {
    expect(stderr).toContain('mcp-gate proxy: telemetry: OTLP/HTTP (traces http/json, metrics http/protobuf) to http://127.0.0.1:');
    expect(stderr).toContain('service proxy-under-test');
  });

  it('exports one span per decided call, get and read over http/json, and none for an unknown name', () => {
    const traces = postsTo('/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    for (const post of traces) expect(post.contentType).toBe('application/json');
    const { service, spans } = exportedSpans();
    expect(service).toBe('proxy-under-test');
    expect(spans.map((span) => span.name).sort()).toEqual(['prompts/get secret-prompt', 'resources/read', 'tools/call public-echo', 'tools/call secret-drop']);
    expect(attributesOf(spans.find((span) => span.name === 'resources/read')!.attributes)).toMatchObject({ 'mcp.resource.uri': 'test://docs/public' });
    expect(attributesOf(spans.find((span) => span.name === 'prompts/get secret-prompt')!.attributes)).toMatchObject({
      'gen_ai.prompt.name': 'secret-prompt',
      'rpc.response.status_code': '-32602',
    });
  });

  it('records a hidden call with the feature_flag.evaluation event and the -32602 its answer carries, as an unknown name’s does', () => {
    expect(JSON.stringify(answers['hidden']).replaceAll('secret-drop', 'NAME')).toBe(JSON.stringify(answers['unknown']).replaceAll('never-registered', 'NAME'));
    expect(JSON.stringify(answers['hidden'])).toContain('-32602');
    const hidden = exportedSpans().spans.find((span) => span.name === 'tools/call secret-drop')!;
    expect(attributesOf(hidden.attributes)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      'gen_ai.tool.name': 'secret-drop',
      'gen_ai.operation.name': 'execute_tool',
      'rpc.response.status_code': '-32602',
      'error.type': '-32602',
    });
    expect(hidden.events.map((event) => [event.name, attributesOf(event.attributes)])).toEqual([
      [
        'feature_flag.evaluation',
        {
          'feature_flag.key': 'tool:secret-drop',
          'feature_flag.provider.name': 'mcp-gate',
          'feature_flag.version': expect.stringMatching(/\S/),
          'feature_flag.result.variant': 'hidden',
          'feature_flag.result.reason': 'targeting_match',
          'mcp_gate.reason': 'rule',
          'mcp_gate.rule.id': 'admin-only',
        },
      ],
    ]);
    const visible = exportedSpans().spans.find((span) => span.name === 'tools/call public-echo')!;
    expect(attributesOf(visible.events[0]!.attributes)).toMatchObject({ 'feature_flag.result.variant': 'visible', 'feature_flag.result.reason': 'default' });
  });

  it('records no session id and no header by default', () => {
    const text = postsTo('/v1/traces')
      .map((post) => post.body.toString('utf8'))
      .join('\n');
    expect(text).not.toContain('mcp.session.id');
    expect(text).not.toContain('http.request.header');
  });

  it('exports the decision counter and the list histograms over the default http/protobuf', () => {
    const metrics = postsTo('/v1/metrics');
    expect(metrics.length).toBeGreaterThan(0);
    for (const post of metrics) expect(post.contentType).toBe('application/x-protobuf');
    // Protobuf keeps strings as UTF-8 bytes: the metric and attribute names are in the payload.
    const bytes = Buffer.concat(metrics.map((post) => post.body)).toString('latin1');
    for (const text of [
      'mcp_gate.decisions',
      'mcp_gate.list.items',
      'mcp_gate.list.visible_items',
      'mcp_gate.decision',
      'hidden',
      'visible',
      'tools/list',
      'proxy-under-test',
    ]) {
      expect(bytes).toContain(text);
    }
  });
});

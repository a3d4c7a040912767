import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compilePolicy } from '../../src/index.js';
import { otelDecisions, type OtelDecisionsOptions } from '../../src/otel/index.js';
import { gate as gateSdk } from '../../src/sdk/index.js';
import { answerOf, bindings, type Binding, type BindingServer, type Connected } from '../bindings/bindings.js';
import { createTelemetry, evaluations, type Telemetry } from './telemetry.js';

const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'admins-only', effect: 'deny', appliesTo: { groups: ['admin'] }, when: { '!': { in: ['admin', { var: 'auth.scopes' }] } } }],
});
const revision = policy.revision;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function register(server: BindingServer): void {
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async (args) => text(String(args['text'])));
  server.registerTool('deploy', { inputSchema: { text: z.string() }, _meta: { 'mcp-gate': { groups: ['admin'] } } }, async () => text('deployed'));
  server.registerPrompt('greeting', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }] }));
  server.registerPrompt('runbook', { _meta: { 'mcp-gate': { groups: ['admin'] } } }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'steps' } }] }));
  server.registerResource('readme', 'file:///readme.md', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '# readme' }] }));
  server.registerResource('audit', 'file:///audit.log', { _meta: { 'mcp-gate': { groups: ['admin'] } } }, async (uri) => ({ contents: [{ uri: uri.href, text: 'log' }] }));
}

/** The answer with the requested name replaced, so a hidden name's answer compares with an unknown one's. */
function withoutName(answer: unknown, name: string): string {
  return JSON.stringify(answer).replaceAll(name, 'NAME');
}

let telemetry: Telemetry;
let connected: Connected | undefined;
beforeEach(() => {
  telemetry = createTelemetry();
});
afterEach(async () => {
  await connected?.close();
  connected = undefined;
  await telemetry.shutdown();
});

describe.each(bindings)('otelDecisions on $name', (binding: Binding) => {
  async function connect(options: OtelDecisionsOptions = {}) {
    const server = binding.createServer();
    const { tracerProvider, meterProvider } = telemetry;
    binding.gate(server, { policy, ...otelDecisions({ tracerProvider, meterProvider, ...options }) } as Parameters<Binding['gate']>[1]);
    register(server);
    connected = await binding.connect(server);
    return connected.client;
  }

  it('records a visible call as one feature_flag.evaluation on a span named as the MCP conventions name it', async () => {
    const client = await connect();
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual(text('hi'));

    const [span, ...others] = await telemetry.spans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('tools/call echo');
    expect(span!.kind).toBe(SpanKind.INTERNAL);
    expect(span!.instrumentationScope.name).toBe('mcp-gate');
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(evaluations(span!)).toEqual([
      {
        'feature_flag.key': 'tool:echo',
        'feature_flag.provider.name': 'mcp-gate',
        'feature_flag.version': revision,
        'feature_flag.result.variant': 'visible',
        'feature_flag.result.reason': 'default',
        'mcp_gate.reason': 'default',
      },
    ]);
  });

  it('records a hidden call with the -32602 status the SDK answers an unknown name with', async () => {
    const client = await connect();
    const hidden = await answerOf(client.callTool({ name: 'deploy', arguments: { text: 'x' } }));
    const unknown = await answerOf(client.callTool({ name: 'nowhere', arguments: { text: 'x' } }));
    expect(withoutName(hidden, 'deploy')).toBe(withoutName(unknown, 'nowhere'));
    expect(JSON.stringify(hidden)).toContain('-32602');

    const [span, ...others] = await telemetry.spans();
    expect(others).toEqual([]); // an unknown name decides nothing
    expect(span!.name).toBe('tools/call deploy');
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes).toMatchObject({ 'gen_ai.tool.name': 'deploy', 'rpc.response.status_code': '-32602', 'error.type': '-32602' });
    expect(evaluations(span!)).toEqual([
      {
        'feature_flag.key': 'tool:deploy',
        'feature_flag.provider.name': 'mcp-gate',
        'feature_flag.version': revision,
        'feature_flag.result.variant': 'hidden',
        'feature_flag.result.reason': 'targeting_match',
        'mcp_gate.reason': 'rule',
        'mcp_gate.rule.id': 'admins-only',
      },
    ]);
  });

  it('records a prompt get and a resource read, visible and hidden', async () => {
    const client = await connect();
    await client.getPrompt({ name: 'greeting' });
    const hiddenPrompt = await answerOf(client.getPrompt({ name: 'runbook' }));
    await client.readResource({ uri: 'file:///readme.md' });
    const hiddenResource = await answerOf(client.readResource({ uri: 'file:///audit.log' }));
    expect(hiddenPrompt).toMatchObject({ error: { code: -32602 } });
    expect(hiddenResource).toMatchObject({ error: { code: -32602 } });

    const spans = await telemetry.spans();
    expect(spans.map((span) => span.name)).toEqual(['prompts/get greeting', 'prompts/get runbook', 'resources/read', 'resources/read']);
    expect(spans.map((span) => span.attributes['gen_ai.prompt.name'] ?? span.attributes['mcp.resource.uri'])).toEqual([
      'greeting',
      'runbook',
      'file:///readme.md',
      'file:///audit.log',
    ]);
    expect(spans.map((span) => span.attributes['rpc.response.status_code'])).toEqual([undefined, '-32602', undefined, '-32602']);
    expect(spans.flatMap(evaluations).map((event) => [event['feature_flag.key'], event['feature_flag.result.variant']])).toEqual([
      ['prompt:greeting', 'visible'],
      ['prompt:runbook', 'hidden'],
      ['resource:file:///readme.md', 'visible'],
      ['resource:file:///audit.log', 'hidden'],
    ]);
  });

  it('counts decisions in mcp_gate.decisions by method, decision, reason and rule', async () => {
    const client = await connect();
    await client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await client.callTool({ name: 'echo', arguments: { text: 'b' } });
    await answerOf(client.callTool({ name: 'deploy', arguments: { text: 'c' } }));
    await answerOf(client.getPrompt({ name: 'runbook' }));

    const points = await telemetry.points('mcp_gate.decisions');
    expect(points.map(({ attributes, value }) => ({ attributes, value }))).toEqual(
      expect.arrayContaining([
        { attributes: { 'mcp.method.name': 'tools/call', 'mcp_gate.decision': 'visible', 'mcp_gate.reason': 'default' }, value: 2 },
        { attributes: { 'mcp.method.name': 'tools/call', 'mcp_gate.decision': 'hidden', 'mcp_gate.reason': 'rule', 'mcp_gate.rule.id': 'admins-only' }, value: 1 },
        { attributes: { 'mcp.method.name': 'prompts/get', 'mcp_gate.decision': 'hidden', 'mcp_gate.reason': 'rule', 'mcp_gate.rule.id': 'admins-only' }, value: 1 },
      ]),
    );
    expect(points).toHaveLength(3);
  });

  it('records visible and total items of each list in two histograms, and no span', async () => {
    const client = await connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await client.listPrompts();
    await client.listResources();

    const summary = async (name: string) =>
      Object.fromEntries(
        (await telemetry.points(name)).map(({ attributes, value }) => [
          attributes['mcp.method.name'],
          { count: (value as { count: number }).count, sum: (value as { sum: number }).sum },
        ]),
      );
    expect(await summary('mcp_gate.list.items')).toEqual({ 'tools/list': { count: 1, sum: 2 }, 'prompts/list': { count: 1, sum: 2 }, 'resources/list': { count: 1, sum: 2 } });
    expect(await summary('mcp_gate.list.visible_items')).toEqual({
      'tools/list': { count: 1, sum: 1 },
      'prompts/list': { count: 1, sum: 1 },
      'resources/list': { count: 1, sum: 1 },
    });
    expect(await telemetry.spans()).toEqual([]);
  });

  it('adds the event and the MCP attributes to the active server span instead of starting one', async () => {
    const client = await connect();
    const tracer = telemetry.tracerProvider.getTracer('test-mcp-instrumentation');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { context } = await import('@opentelemetry/api');
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      await tracer.startActiveSpan('tools/call deploy', { kind: SpanKind.SERVER }, async (span) => {
        await answerOf(client.callTool({ name: 'deploy', arguments: { text: 'x' } }));
        span.end();
      });
    } finally {
      context.disable();
    }
    const [span, ...others] = await telemetry.spans();
    expect(others).toEqual([]);
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.instrumentationScope.name).toBe('test-mcp-instrumentation');
    expect(span!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'deploy', 'rpc.response.status_code': '-32602' });
    expect(evaluations(span!).map((event) => event['feature_flag.key'])).toEqual(['tool:deploy']);
  });

  it('records the decision span after the answer, with the time the gate decided', async () => {
    const client = await connect();
    const before = Date.now();
    await client.callTool({ name: 'deploy', arguments: { text: 'x' } }).catch(() => undefined);
    expect(telemetry.spansNow()).toEqual([]);
    const [span] = await telemetry.spans();
    const startedMs = span!.startTime[0] * 1000 + span!.startTime[1] / 1e6;
    expect(startedMs).toBeGreaterThanOrEqual(before - 1);
    expect(startedMs).toBeLessThanOrEqual(Date.now());
  });

  it('still calls the onDecision it was given', async () => {
    const seen: string[] = [];
    const client = await connect({ onDecision: (event) => void seen.push(`${event.method} ${event.allowed}`) });
    await client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await client.listTools();
    expect(seen).toEqual(['tools/call true', 'tools/list true']);
  });
});

describe('otelDecisions privacy', () => {
  const headers = { authorization: 'Bearer secret-token', 'x-tenant': 'acme', 'mcp-session-id': 'session-123' };
  const authInfo = { token: 'secret-token', clientId: 'client-7', scopes: ['admin'], extra: { sub: 'user-42' } };

  /** mcp-gate/sdk behind the in-memory transport, fed the request info and auth an HTTP transport hands the SDK. */
  async function connectWithHttpRequestInfo(options: OtelDecisionsOptions): Promise<Client> {
    const server = new McpServer({ name: 'privacy', version: '1.0.0' });
    gateSdk(server, { policy, ...otelDecisions({ tracerProvider: telemetry.tracerProvider, meterProvider: telemetry.meterProvider, ...options }) });
    register(server as unknown as BindingServer);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const deliver = serverTransport.onmessage!;
    serverTransport.onmessage = (message, extra) =>
      deliver(message, { ...extra, authInfo, requestInfo: { headers, url: new URL('http://127.0.0.1/mcp') } } as Parameters<typeof deliver>[1]);
    const client = new Client({ name: 'privacy-client', version: '1.0.0' });
    await client.connect(clientTransport);
    connected = { client, close: () => client.close().then(() => server.close()) };
    return client;
  }

  const everything = (span: { attributes: object; events: { attributes?: object }[] }) => JSON.stringify([span.attributes, span.events.map((event) => event.attributes)]);

  it('records nothing from headers, auth or the session by default', async () => {
    const client = await connectWithHttpRequestInfo({});
    await client.callTool({ name: 'deploy', arguments: { text: 'argument-value' } });
    const [span] = await telemetry.spans();
    expect(evaluations(span!)[0]).toMatchObject({ 'feature_flag.result.variant': 'visible' }); // the admin scope came through
    for (const secret of [
      'secret-token',
      'acme',
      'session-123',
      'client-7',
      'user-42',
      'argument-value',
      'http.request.header',
      'feature_flag.context.id',
      'mcp.session.id',
    ]) {
      expect(everything(span!)).not.toContain(secret);
    }
  });

  it('records allow-listed headers, credential headers as [redacted], the context id and the session id when asked', async () => {
    const client = await connectWithHttpRequestInfo({ headers: ['X-Tenant', 'authorization', 'mcp-session-id'], auth: true, sessionId: true });
    await client.callTool({ name: 'echo', arguments: { text: 'argument-value' } });
    const [span] = await telemetry.spans();
    expect(span!.attributes).toMatchObject({
      'http.request.header.x-tenant': ['acme'],
      'http.request.header.authorization': ['[redacted]'],
      'http.request.header.mcp-session-id': ['[redacted]'],
    });
    expect(evaluations(span!)[0]).toMatchObject({ 'feature_flag.context.id': 'user-42' });
    expect(everything(span!)).not.toContain('secret-token');
    expect(everything(span!)).not.toContain('argument-value');
  });

  it('records credential header values only with recordCredentialHeaders', async () => {
    const client = await connectWithHttpRequestInfo({ headers: ['authorization'], recordCredentialHeaders: true });
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    expect((await telemetry.spans())[0]!.attributes['http.request.header.authorization']).toEqual(['Bearer secret-token']);
  });

  it('rejects options of the wrong type, naming the option', () => {
    expect(() => otelDecisions({ headers: 'x-tenant' as never })).toThrow('mcp-gate/otel: option "headers" must be an array of header names');
    expect(() => otelDecisions({ onDecision: 1 as never })).toThrow('mcp-gate/otel: option "onDecision" must be a function, got number');
  });
});

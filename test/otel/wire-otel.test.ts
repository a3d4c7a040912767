import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestContextInput } from '../../src/core/context.js';
import { compilePolicy } from '../../src/index.js';
import { otelDecisions, type OtelDecisionsOptions } from '../../src/otel/index.js';
import { createWireGate, RelayedError, type WireConnection } from '../../src/wire/index.js';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { createTelemetry, evaluations, type Telemetry } from './telemetry.js';

// otelDecisions on the wire binding (what `mcp-gate proxy` runs on): a real SDK upstream, gated by
// createWireGate, recorded by the real OTel SDK into memory. The same events and attributes as
// on the SDK adapters (otel-decisions.test.ts); a hidden name is answered by the upstream as a
// name it does not have, and recorded with the -32602 that answer carries.

const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'secret-for-admins', effect: 'deny', appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
});
const overlay = { metadata: { 'tool:secret-*': { groups: ['secret'] }, 'prompt:secret-*': { groups: ['secret'] }, 'resource:test://docs/secret': { groups: ['secret'] } } };
const visitorHeaders = { 'x-role': 'visitor', authorization: 'Bearer wire-secret' };
/** The context input `mcp-gate proxy` hands the wire binding for a request (src/proxy/proxy-session.ts). */
const visitor = (method: string): RequestContextInput => ({ request: { method, headers: visitorHeaders, sessionId: 'wire-session-1' } });

let telemetry: Telemetry;
let close: (() => Promise<void>) | undefined;
beforeEach(() => {
  telemetry = createTelemetry();
});
afterEach(async () => {
  await close?.();
  close = undefined;
  await telemetry.shutdown();
});

async function connect(options: OtelDecisionsOptions = {}): Promise<WireConnection> {
  const { tracerProvider, meterProvider } = telemetry;
  const gate = createWireGate({ policy, overlay, ...otelDecisions({ tracerProvider, meterProvider, ...options }) });
  const upstream = createRecordingUpstream();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await upstream.connect(serverTransport);
  const client = new Client({ name: 'wire-otel', version: '1.0.0' });
  await client.connect(clientTransport);
  close = () => client.close().then(() => upstream.close());
  return gate.attach(client, { notify: async () => undefined, isOpen: () => true });
}

let nextId = 0;
/** The answer as the downstream client gets it: the result, or the relayed JSON-RPC error. */
async function answerOf(connection: WireConnection, method: string, params: Record<string, unknown>): Promise<unknown> {
  try {
    return { result: await connection.handle({ method, params, id: ++nextId }, visitor(method)) };
  } catch (error) {
    if (!(error instanceof RelayedError)) throw error;
    return { error: { code: error.code, message: error.message } };
  }
}

/** The answer with the requested name replaced, so a hidden name's answer compares with an unknown one's. */
const withoutName = (answer: unknown, name: string) => JSON.stringify(answer).replaceAll(name, 'NAME');

describe('otelDecisions on the wire binding', () => {
  it('records a visible call as one feature_flag.evaluation on a span named as the MCP conventions name it', async () => {
    const connection = await connect();
    await answerOf(connection, 'tools/call', { name: 'public-echo', arguments: { message: 'hi' } });

    const [span, ...others] = await telemetry.spans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('tools/call public-echo');
    expect(span!.kind).toBe(SpanKind.INTERNAL);
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': String(nextId),
      'gen_ai.tool.name': 'public-echo',
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(evaluations(span!)).toEqual([
      {
        'feature_flag.key': 'tool:public-echo',
        'feature_flag.provider.name': 'mcp-gate',
        'feature_flag.version': policy.revision,
        'feature_flag.result.variant': 'visible',
        'feature_flag.result.reason': 'default',
        'mcp_gate.reason': 'default',
      },
    ]);
  });

  it('records a hidden call with the -32602 status the upstream answers an unknown name with', async () => {
    const connection = await connect();
    const hidden = await answerOf(connection, 'tools/call', { name: 'secret-drop', arguments: { table: 'users' } });
    const unknown = await answerOf(connection, 'tools/call', { name: 'never-registered', arguments: { table: 'users' } });
    expect(withoutName(hidden, 'secret-drop')).toBe(withoutName(unknown, 'never-registered'));
    expect(JSON.stringify(hidden)).toContain('-32602');

    const [span, ...others] = await telemetry.spans();
    expect(others).toEqual([]); // an unknown name decides nothing
    expect(span!.name).toBe('tools/call secret-drop');
    expect(span!.status.code).toBe(SpanStatusCode.ERROR);
    expect(span!.attributes).toMatchObject({ 'gen_ai.tool.name': 'secret-drop', 'rpc.response.status_code': '-32602', 'error.type': '-32602' });
    expect(evaluations(span!)).toEqual([
      {
        'feature_flag.key': 'tool:secret-drop',
        'feature_flag.provider.name': 'mcp-gate',
        'feature_flag.version': policy.revision,
        'feature_flag.result.variant': 'hidden',
        'feature_flag.result.reason': 'targeting_match',
        'mcp_gate.reason': 'rule',
        'mcp_gate.rule.id': 'secret-for-admins',
      },
    ]);
  });

  it('records prompt gets and resource reads, visible and hidden, with the answer codes an unknown name gets', async () => {
    const connection = await connect();
    await answerOf(connection, 'prompts/get', { name: 'public-prompt' });
    const hiddenPrompt = await answerOf(connection, 'prompts/get', { name: 'secret-prompt' });
    await answerOf(connection, 'resources/read', { uri: 'test://docs/public' });
    const hiddenResource = await answerOf(connection, 'resources/read', { uri: 'test://docs/secret' });
    expect(withoutName(hiddenPrompt, 'secret-prompt')).toBe(withoutName(await answerOf(connection, 'prompts/get', { name: 'never-registered' }), 'never-registered'));
    expect(hiddenPrompt).toMatchObject({ error: { code: -32602 } });
    expect(hiddenResource).toMatchObject({ error: { code: -32602 } });

    const spans = await telemetry.spans();
    expect(spans.map((span) => span.name)).toEqual(['prompts/get public-prompt', 'prompts/get secret-prompt', 'resources/read', 'resources/read']);
    expect(spans.map((span) => span.attributes['gen_ai.prompt.name'] ?? span.attributes['mcp.resource.uri'])).toEqual([
      'public-prompt',
      'secret-prompt',
      'test://docs/public',
      'test://docs/secret',
    ]);
    expect(spans.map((span) => span.attributes['rpc.response.status_code'])).toEqual([undefined, '-32602', undefined, '-32602']);
    expect(spans.flatMap(evaluations).map((event) => [event['feature_flag.key'], event['feature_flag.result.variant']])).toEqual([
      ['prompt:public-prompt', 'visible'],
      ['prompt:secret-prompt', 'hidden'],
      ['resource:test://docs/public', 'visible'],
      ['resource:test://docs/secret', 'hidden'],
    ]);
  });

  it('records the session id only when asked, and never the credentials the request carried', async () => {
    const connection = await connect({ sessionId: true, headers: ['authorization'] });
    await answerOf(connection, 'tools/call', { name: 'public-echo', arguments: { message: 'hi' } });
    const [span] = await telemetry.spans();
    expect(span!.attributes).toMatchObject({ 'mcp.session.id': 'wire-session-1', 'http.request.header.authorization': ['[redacted]'] });
    expect(JSON.stringify([span!.attributes, span!.events])).not.toContain('wire-secret');
  });

  it('records no session id by default', async () => {
    const connection = await connect();
    await answerOf(connection, 'tools/call', { name: 'public-echo', arguments: { message: 'hi' } });
    const [span] = await telemetry.spans();
    expect(span!.attributes['mcp.session.id']).toBeUndefined();
  });

  it('counts decisions and records each list’s visible and total items', async () => {
    const connection = await connect();
    await answerOf(connection, 'tools/call', { name: 'public-echo', arguments: { message: 'a' } });
    await answerOf(connection, 'tools/call', { name: 'secret-drop', arguments: { table: 'b' } });
    await answerOf(connection, 'prompts/list', {});

    const counted = await telemetry.points('mcp_gate.decisions');
    expect(counted.map(({ attributes, value }) => ({ attributes, value }))).toEqual(
      expect.arrayContaining([
        { attributes: { 'mcp.method.name': 'tools/call', 'mcp_gate.decision': 'visible', 'mcp_gate.reason': 'default' }, value: 1 },
        { attributes: { 'mcp.method.name': 'tools/call', 'mcp_gate.decision': 'hidden', 'mcp_gate.reason': 'rule', 'mcp_gate.rule.id': 'secret-for-admins' }, value: 1 },
      ]),
    );
    expect(counted).toHaveLength(2);
    const listed = await telemetry.points('mcp_gate.list.items');
    const visible = await telemetry.points('mcp_gate.list.visible_items');
    expect(listed.map(({ attributes, value }) => [attributes['mcp.method.name'], (value as { sum: number }).sum])).toEqual([['prompts/list', 2]]);
    expect(visible.map(({ attributes, value }) => [attributes['mcp.method.name'], (value as { sum: number }).sum])).toEqual([['prompts/list', 1]]);
  });
});

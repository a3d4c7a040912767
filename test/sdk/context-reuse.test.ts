import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { wholeContextOf, type ContextPlan } from '../../src/core/context.js';
import type { PolicyDocument } from '../../src/index.js';
import { createGate, type GateOptions } from '../../src/sdk/index.js';
import { createContextBuilder } from '../../src/sdk/request-context.js';
import type { SdkExtra } from '../../src/sdk/server-internals.js';

// A session's requests mostly carry the same values, so the v1 binding hands a request the
// context of the session's previous one when every value that context holds is unchanged
// (src/sdk/request-context.ts). These pin that a changed value is never answered from a kept
// context, and that what a new policy reads of a session is its latest request.

interface Arrival {
  headers: Record<string, string>;
  url: string;
  authInfo?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
}

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close();
});

/** A client whose requests arrive with the request info and auth in `arrival` at the time each is sent. */
async function connect(options: GateOptions, arrival: Arrival) {
  const server = new McpServer({ name: 'reuse', version: '1.0.0' });
  const policyGate = createGate(options);
  policyGate.install(server);
  server.registerTool('export', { description: 'paid tier only' }, () => ({ content: [{ type: 'text', text: 'export' }] }));
  server.registerTool('echo', { description: 'for everyone' }, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const deliver = serverTransport.onmessage!;
  serverTransport.onmessage = (message, extra) =>
    deliver(message, {
      ...extra,
      // A fresh headers object and URL per request, as the SDK's HTTP transport builds them.
      requestInfo: { headers: { ...arrival.headers }, url: new URL(arrival.url) },
      authInfo: arrival.authInfo && { ...arrival.authInfo, scopes: [...arrival.authInfo.scopes] },
    } as Parameters<typeof deliver>[1]);
  const client = new Client({ name: 'reuse-client', version: '1.0.0' });
  await client.connect(clientTransport);
  opened.push(client);
  return { client, gate: policyGate };
}

const denyEchoUnless = (variable: string, value: unknown): PolicyDocument => ({
  version: 1,
  default: 'allow',
  rules: [{ id: 'echo-gated', effect: 'deny', appliesTo: { names: ['echo'] }, when: { '!=': [{ var: variable }, value] } }],
});
const readsRegion = denyEchoUnless('request.headers.x-region', 'eu');
const readsTier: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'paid-only', effect: 'deny', appliesTo: { names: ['export'] }, when: { '==': [{ var: 'request.headers.x-tier' }, 'free'] } }],
};
const baseHeaders = { accept: 'application/json', 'user-agent': 'node', 'mcp-protocol-version': '2025-06-18' };

async function callText(client: Client, name: string): Promise<string> {
  const result = await client.callTool({ name, arguments: {} });
  const [first] = result.content as Array<{ text: string }>;
  return result.isError ? `error: ${first!.text}` : first!.text;
}

describe("gate (mcp-gate/sdk): a session's kept context", () => {
  it('decides a call on a header that changed since the previous call of the session', async () => {
    const arrival: Arrival = { headers: { ...baseHeaders, 'x-region': 'eu' }, url: 'http://127.0.0.1/mcp' };
    const { client } = await connect({ policy: readsRegion }, arrival);
    expect(await callText(client, 'echo')).toBe('echo');
    expect(await callText(client, 'echo')).toBe('echo');
    arrival.headers = { ...baseHeaders, 'x-region': 'us' };
    expect(await callText(client, 'echo')).toMatch(/^error: .*not found/);
    arrival.headers = { ...baseHeaders };
    expect(await callText(client, 'echo')).toMatch(/^error: .*not found/);
    arrival.headers = { ...baseHeaders, 'x-region': 'eu' };
    expect(await callText(client, 'echo')).toBe('echo');
  });

  it('decides a call on the endpoint, the protocol version header and the token as they are now', async () => {
    const cases: Array<[PolicyDocument, (arrival: Arrival, allowed: boolean) => void]> = [
      [denyEchoUnless('request.endpoint', '/mcp/admin'), (arrival, allowed) => (arrival.url = `http://127.0.0.1/mcp/${allowed ? 'admin' : 'public'}`)],
      [denyEchoUnless('request.protocolVersion', '2025-06-18'), (arrival, allowed) => (arrival.headers['mcp-protocol-version'] = allowed ? '2025-06-18' : '2025-03-26')],
      [denyEchoUnless('auth.clientId', 'ops'), (arrival, allowed) => (arrival.authInfo!.clientId = allowed ? 'ops' : 'guest')],
      [denyEchoUnless('auth.subject', 'user-1'), (arrival, allowed) => (arrival.authInfo!.extra = { sub: allowed ? 'user-1' : 'user-2' })],
      [denyEchoUnless('auth.issuer', 'https://idp'), (arrival, allowed) => (arrival.authInfo!.extra = allowed ? { iss: 'https://idp' } : {})],
      [
        {
          version: 1,
          default: 'allow',
          rules: [{ id: 'scoped', effect: 'deny', appliesTo: { names: ['echo'] }, when: { '!': { in: ['mcp:echo', { var: 'auth.scopes' }] } } }],
        },
        (arrival, allowed) => (arrival.authInfo!.scopes = allowed ? ['mcp:read', 'mcp:echo'] : ['mcp:read', 'mcp:write']),
      ],
      [denyEchoUnless('auth.claims.team', 'ops'), (arrival, allowed) => (arrival.authInfo!.extra = { team: allowed ? 'ops' : 'dev' })],
    ];
    for (const [policy, set] of cases) {
      const arrival: Arrival = { headers: { ...baseHeaders }, url: 'http://127.0.0.1/mcp', authInfo: { token: 't', clientId: 'c', scopes: [] } };
      const { client } = await connect({ policy }, arrival);
      const outcomes: string[] = [];
      for (const allowed of [true, true, false, false, true]) {
        set(arrival, allowed);
        outcomes.push(await callText(client, 'echo'));
      }
      expect(
        outcomes.map((text) => text === 'echo'),
        JSON.stringify(policy.rules),
      ).toEqual([true, true, false, false, true]);
    }
  });

  it('decides with a new policy on what the session sent last, including headers the old policy never read', async () => {
    const arrival: Arrival = { headers: { ...baseHeaders, 'x-region': 'eu', 'x-tier': 'paid' }, url: 'http://127.0.0.1/mcp' };
    const { client, gate } = await connect({ policy: readsRegion }, arrival);
    expect(await callText(client, 'export')).toBe('export');
    // Same x-region (all the old policy reads), another x-tier: the session's latest request is the free tier's.
    arrival.headers = { ...baseHeaders, 'x-region': 'eu', 'x-tier': 'free' };
    expect(await callText(client, 'echo')).toBe('echo');
    const changed = new Promise<string>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve('list_changed')));
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('no notification'), 5_000).unref());
    await gate.setPolicy(readsTier);
    expect(await Promise.race([changed, bounded])).toBe('list_changed');
    // The new policy reads x-tier: the next call is decided on it, not on a context kept for the old plan.
    expect(await callText(client, 'export')).toMatch(/^error: .*not found/);
    arrival.headers = { ...baseHeaders, 'x-region': 'eu', 'x-tier': 'paid' };
    expect(await callText(client, 'export')).toBe('export');
  });
});

/** The `extra` of an HTTP request as the SDK hands it to a handler (only the parts the gate reads). */
function httpExtra(headers: Record<string, string | string[]>, authInfo?: SdkExtra['authInfo'], url = 'http://127.0.0.1/mcp/admin'): SdkExtra {
  return { requestId: 1, sessionId: 's-1', requestInfo: { headers, url: new URL(url) }, authInfo } as unknown as SdkExtra;
}

const planForRegion: ContextPlan = Object.freeze({ headers: Object.freeze(['x-region']), capabilities: false, scopes: false, claims: false });

describe('createContextBuilder', () => {
  const server = new McpServer({ name: 'reuse', version: '1.0.0' }).server;

  it('hands a request the previous context of its method when every value the context holds is the same', () => {
    const contextFor = createContextBuilder(server);
    const first = contextFor('tools/call', httpExtra({ 'x-region': 'eu', 'user-agent': 'a' }), planForRegion);
    const second = contextFor('tools/call', httpExtra({ 'x-region': 'eu', 'user-agent': 'b' }), planForRegion);
    expect(second).toBe(first);
    expect(contextFor('tools/list', httpExtra({ 'x-region': 'eu' }), planForRegion).request.method).toBe('tools/list');
  });

  it('builds anew when a value the context holds changed', () => {
    const contextFor = createContextBuilder(server);
    const first = contextFor('tools/call', httpExtra({ 'x-region': 'eu' }), planForRegion);
    const changes: SdkExtra[] = [
      httpExtra({ 'x-region': 'us' }),
      httpExtra({}),
      httpExtra({ 'x-region': ['eu', 'us'] }),
      httpExtra({ 'x-region': 'eu' }, undefined, 'http://127.0.0.1/mcp/public'),
      httpExtra({ 'x-region': 'eu', 'mcp-protocol-version': '2025-06-18' }),
      httpExtra({ 'x-region': 'eu' }, { token: 't', clientId: 'c', scopes: [] }),
      { ...httpExtra({ 'x-region': 'eu' }), sessionId: 's-2' } as SdkExtra,
    ];
    for (const extra of changes) {
      const context = contextFor('tools/call', extra, planForRegion);
      expect(context).not.toBe(first);
      expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu' }), planForRegion)).not.toBe(context);
    }
    const wider: ContextPlan = Object.freeze({ ...planForRegion, headers: Object.freeze(['x-region', 'x-tier']) });
    expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu', 'x-tier': 'free' }), wider).request.headers).toEqual({ 'x-region': 'eu', 'x-tier': 'free' });
  });

  it('tells a header named like an Object.prototype member apart from its absence', () => {
    const contextFor = createContextBuilder(server);
    const plan: ContextPlan = Object.freeze({ ...planForRegion, headers: Object.freeze(['constructor', 'x-region']) });
    const absent = contextFor('tools/call', httpExtra({ 'x-region': 'eu' }), plan);
    expect(absent.request.headers).toEqual({ 'x-region': 'eu' });
    expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu' }), plan)).toBe(absent);
    const present = contextFor('tools/call', httpExtra({ constructor: 'x', 'x-region': 'eu' } as Record<string, string>), plan);
    expect(present.request.headers).toEqual({ constructor: 'x', 'x-region': 'eu' });
    expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu' }), plan).request.headers).toEqual({ 'x-region': 'eu' });
  });

  it('reads the endpoint of a request whose URL differs only after the path as the same', () => {
    const contextFor = createContextBuilder(server);
    const first = contextFor('tools/call', httpExtra({ 'x-region': 'eu' }, undefined, 'http://127.0.0.1/mcp/admin?a=1'), planForRegion);
    expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu' }, undefined, 'http://127.0.0.1/mcp/admin?a=2'), planForRegion)).toBe(first);
    expect(contextFor('tools/call', httpExtra({ 'x-region': 'eu' }, undefined, 'http://127.0.0.1/mcp/public?a=1'), planForRegion).request.endpoint).toBe('/mcp/public');
  });

  it('builds anew when scopes the plan reads changed, element by element', () => {
    const contextFor = createContextBuilder(server);
    const plan: ContextPlan = Object.freeze({ ...planForRegion, scopes: true });
    const token = (scopes: string[]) => ({ token: 't', clientId: 'c', scopes });
    const first = contextFor('tools/call', httpExtra({}, token(['a', 'b'])), plan);
    expect(contextFor('tools/call', httpExtra({}, token(['a', 'b'])), plan)).toBe(first);
    expect(contextFor('tools/call', httpExtra({}, token(['a', 'c'])), plan).auth.scopes).toEqual(['a', 'c']);
    expect(contextFor('tools/call', httpExtra({}, token(['a'])), plan).auth.scopes).toEqual(['a']);
    expect(contextFor('tools/call', httpExtra({}, token(['a', 'b'])), plan).auth.scopes).toEqual(['a', 'b']);
    expect(contextFor('tools/call', httpExtra({}, token(['a', 'b', 'c'])), plan).auth.scopes).toEqual(['a', 'b', 'c']);
  });

  it('builds anew when claims the plan reads arrive with a token after a request without one', () => {
    const contextFor = createContextBuilder(server);
    const plan: ContextPlan = Object.freeze({ ...planForRegion, claims: true });
    const stdio = { requestId: 1 } as unknown as SdkExtra;
    expect(contextFor('tools/call', stdio, plan)).toBe(contextFor('tools/call', stdio, plan));
    const withClaims = { requestId: 2, authInfo: { token: 't', scopes: [], extra: { team: 'ops' } } } as unknown as SdkExtra;
    expect(contextFor('tools/call', withClaims, plan).auth.claims).toEqual({ team: 'ops' });
  });

  it('builds anew when the request info appears under a plan that keeps every header', () => {
    const contextFor = createContextBuilder(server);
    const stdio = { requestId: 1 } as unknown as SdkExtra;
    expect(contextFor('tools/call', stdio)).toBe(contextFor('tools/call', stdio));
    const { request } = contextFor('tools/call', { requestId: 2, requestInfo: { headers: { 'x-region': 'eu' } } } as unknown as SdkExtra);
    expect(request.headers).toEqual({ 'x-region': 'eu' });
  });

  it("builds anew when the session's declared capabilities are another object", () => {
    const fresh = new McpServer({ name: 'reuse', version: '1.0.0' }).server;
    const contextFor = createContextBuilder(fresh);
    const plan: ContextPlan = Object.freeze({ ...planForRegion, capabilities: true });
    expect(contextFor('tools/call', httpExtra({}), plan).client.capabilities).toBeUndefined();
    // Where the SDK's `initialize` handler keeps what the client declared.
    (fresh as unknown as { _clientCapabilities: unknown })._clientCapabilities = { sampling: {} };
    expect(contextFor('tools/call', httpExtra({}), plan).client.capabilities).toEqual({ sampling: {} });
  });

  it('keeps the whole of the latest request for a later policy, though it reused the context', () => {
    const contextFor = createContextBuilder(server);
    const first = contextFor('tools/call', httpExtra({ 'x-region': 'eu', 'x-tier': 'paid' }, { token: 't', clientId: 'c', scopes: ['a'] }), planForRegion);
    const second = contextFor(
      'tools/call',
      httpExtra({ 'x-region': 'eu', 'x-tier': 'free' }, { token: 't', clientId: 'c', scopes: ['b'], extra: { team: 'dev' } }),
      planForRegion,
    );
    expect(second).toBe(first);
    const whole = wholeContextOf(second);
    expect(whole.request.headers).toEqual({ 'x-region': 'eu', 'x-tier': 'free' });
    expect(whole.auth.scopes).toEqual(['b']);
    expect(whole.auth.claims).toEqual({ team: 'dev' });
  });
});

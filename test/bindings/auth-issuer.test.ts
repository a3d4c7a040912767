import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { describe, expect, it } from 'vitest';
import { planReads } from '../../src/adapter/context-plan.js';
import { authOfToken } from '../../src/adapter/token-auth.js';
import { createPlannedRequestContext } from '../../src/core/context.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { answerOf, bindings, type BindingServer } from './bindings.js';

// auth.issuer through both adapters: the SDKs' AuthInfo has no issuer field, so the adapters
// take it from the token's claims, `authInfo.extra.iss` (as `auth.subject` is `extra.sub`).

const trusted = 'https://idp.example.com';
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'admin-needs-trusted-issuer', effect: 'deny', appliesTo: { groups: ['admin'] }, when: { '!=': [{ var: 'auth.issuer' }, trusted] } }],
});

function token(extra: Record<string, unknown> | undefined): AuthInfo {
  return { token: 'opaque', clientId: 'client-1', scopes: ['read'], ...(extra === undefined ? {} : { extra }) };
}

/** A real SDK Client over the in-memory transport; every message it sends carries `authInfo`, as an auth middleware would attach it. */
async function connectWithToken(server: BindingServer, authInfo: AuthInfo | undefined) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const send = clientTransport.send.bind(clientTransport);
  clientTransport.send = (message, options) => send(message, { ...options, authInfo });
  const client = new Client({ name: 'issuer-test', version: '1.0.0' });
  await Promise.all([(server as unknown as { connect(transport: unknown): Promise<void> }).connect(serverTransport), client.connect(clientTransport)]);
  return { client, close: () => client.close() };
}

describe('the token mapping and the context plan', () => {
  it('maps extra.iss to auth.issuer, which a plan reading only auth.issuer keeps (scalars are always built)', () => {
    const auth = authOfToken(token({ sub: 'alice', iss: trusted, org: 'acme' }));
    expect(auth).toMatchObject({ clientId: 'client-1', subject: 'alice', issuer: trusted, scopes: ['read'] });
    const plan = planReads(policy.reads);
    expect(plan).toMatchObject({ claims: false, scopes: false });
    const context = createPlannedRequestContext({ auth }, plan);
    expect(context.auth.issuer).toBe(trusted);
    expect(context.auth.claims).toEqual({});
  });
});

describe.each(bindings)('$name (auth.issuer)', (binding) => {
  function createServer() {
    const server = binding.createServer();
    const reports = binding.gate(server, { policy });
    server.registerTool('admin', { _meta: { 'mcp-gate': { groups: ['admin'] } } }, async () => ({ content: [{ type: 'text', text: 'admin ran' }] }));
    server.registerTool('search', {}, async () => ({ content: [{ type: 'text', text: 'search ran' }] }));
    return { server, reports };
  }

  it.each([
    ['a token from the trusted issuer', token({ sub: 'alice', iss: trusted }), ['admin', 'search']],
    ['a token from another issuer', token({ sub: 'alice', iss: 'https://other.example.org' }), ['search']],
    ['a token whose iss is not a string', token({ sub: 'alice', iss: [trusted] }), ['search']],
    ['a token without claims', token(undefined), ['search']],
    ['no token', undefined, ['search']],
  ] as const)('shows and runs admin tools only for %s', async (_caller, authInfo, visible) => {
    const { server, reports } = createServer();
    const connected = await connectWithToken(server, authInfo);
    expect((await connected.client.listTools()).tools.map((tool) => tool.name)).toEqual(visible);
    const called = await answerOf(connected.client.callTool({ name: 'admin' }));
    const unknown = await answerOf(connected.client.callTool({ name: 'never-registered' }));
    if ((visible as readonly string[]).includes('admin')) expect(called).toEqual({ result: { content: [{ type: 'text', text: 'admin ran' }] } });
    else expect(JSON.stringify(called)).toBe(JSON.stringify(unknown).replaceAll('never-registered', 'admin'));
    expect(reports.errors).toEqual([]);
    await connected.close();
    await server.close();
  });
});

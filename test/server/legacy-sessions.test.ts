import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate, type Gate } from '../../src/server/index.js';
import { clientCapabilitiesMetaKey } from '../../src/adapter/envelope.js';
import { createGatedHandler, createServer, registryPolicy, registryPolicyDocument, reportExtension } from './fixtures.js';
import { listen, postModern, type Endpoint } from './http.js';

/**
 * Both eras on one endpoint, as docs/server.md describes: 2026-07-28 requests go to a strict
 * createMcpHandler whose factory gates a fresh server per request; 2025-era clients get a
 * session, a server of their own gated with their `initialize` capabilities.
 */
function createBothErasEndpoint(policyGate: Gate) {
  const modern = createMcpHandler(
    (request) => {
      const server = createServer();
      policyGate.install(server, { request });
      return server;
    },
    { legacy: 'reject' },
  );
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  async function fetchBothEras(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    if (!(await isLegacyRequest(request))) return modern.fetch(request, options);
    const existing = sessions.get(request.headers.get('mcp-session-id') ?? '');
    if (existing) return existing.handleRequest(request, options);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    const server = createServer();
    policyGate.install(server);
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }
  return { fetchBothEras, sessions, close: () => modern.close() };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
});

async function connectLegacy(endpoint: Endpoint, capabilities: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'legacy-client', version: '0.9.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${endpoint.url}/mcp`), { requestInit: { headers } }));
  opened.push(client);
  return client;
}

async function start() {
  const both = createBothErasEndpoint(createGate({ policy: registryPolicy }));
  const endpoint = await listen(both.fetchBothEras);
  opened.push(both, endpoint);
  return { endpoint, both };
}

describe('gate (mcp-gate/server): 2025-era clients on a session path', () => {
  it('gates a 2025-11-25 session with the capabilities of its initialize', async () => {
    const { endpoint } = await start();
    const plain = await connectLegacy(endpoint, {});
    const extended = await connectLegacy(endpoint, { extensions: { [reportExtension]: {} } });
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(await names(plain)).toEqual(['echo', 'report']);
    expect(await names(extended)).toEqual(['echo', 'export', 'report']);
    expect(await extended.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'enabled' }] });
    expect(await plain.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
    await expect(plain.callTool({ name: 'export', arguments: {} })).rejects.toThrow('Tool export not found');
  });

  it('gates a session by the headers its requests carry', async () => {
    const { endpoint } = await start();
    const admin = await connectLegacy(endpoint, {}, { 'x-role': 'admin' });
    expect((await admin.listTools()).tools.map((tool) => tool.name)).toContain('admin-reset');
  });

  it('serves modern requests on the same endpoint without sessions', async () => {
    const { endpoint, both } = await start();
    const answer = await postModern(endpoint, 'tools/call', { name: 'report', arguments: {} }, { capabilities: { extensions: { [reportExtension]: {} } } });
    expect(answer.body.result?.['content']).toEqual([{ type: 'text', text: 'enabled' }]);
    expect(both.sessions.size).toBe(0);
  });

  it('sends list_changed to a session whose visible tools changed when the policy changes', async () => {
    const policyGate = createGate({ policy: registryPolicy });
    const both = createBothErasEndpoint(policyGate);
    const endpoint = await listen(both.fetchBothEras);
    opened.push(both, endpoint);
    const client = await connectLegacy(endpoint, {});
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await client.listTools();
    await policyGate.setPolicy({ version: 1, default: 'allow', rules: [{ id: 'no-echo', effect: 'deny', appliesTo: { names: ['echo'] } }] });
    await changed;
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo');
  });
});

/** A 2025-era request's `_meta` claiming other capabilities than the session's initialize (no protocol-version claim, so the SDK keeps it legacy). */
const claimsExtension = { [clientCapabilitiesMetaKey]: { extensions: { [reportExtension]: {} } } };
const claimsNothing = { [clientCapabilitiesMetaKey]: {} };

describe('gate (mcp-gate/server): one source of capabilities per protocol era', () => {
  const toolNames = async (client: Client, meta: Record<string, unknown>) => (await client.listTools({ _meta: meta })).tools.map((tool) => tool.name).sort();

  it('ignores capabilities a 2025-era session request claims in its _meta: initialize alone decides', async () => {
    const { endpoint } = await start();
    const plain = await connectLegacy(endpoint, {});
    expect(await toolNames(plain, claimsExtension)).toEqual(['echo', 'report']);
    await expect(plain.callTool({ name: 'export', arguments: {}, _meta: claimsExtension })).rejects.toThrow('Tool export not found');
    expect(await plain.callTool({ name: 'report', arguments: {}, _meta: claimsExtension })).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
  });

  it('keeps capabilities a 2025-era session declared in initialize when a request _meta claims none', async () => {
    const { endpoint } = await start();
    const extended = await connectLegacy(endpoint, { extensions: { [reportExtension]: {} } });
    expect(await toolNames(extended, claimsNothing)).toEqual(['echo', 'export', 'report']);
    expect(await extended.callTool({ name: 'report', arguments: {}, _meta: claimsNothing })).toMatchObject({ content: [{ type: 'text', text: 'enabled' }] });
  });

  it('gives a stateless 2025-era request no capabilities, whatever its _meta claims', async () => {
    const handler = createGatedHandler();
    const endpoint = await listen(handler);
    opened.push(endpoint);
    const client = new Client({ name: 'stateless-legacy', version: '0.9.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${endpoint.url}/mcp`)));
    opened.push(client);
    expect(await toolNames(client, claimsExtension)).toEqual(['echo', 'report']);
    await expect(client.callTool({ name: 'export', arguments: {}, _meta: claimsExtension })).rejects.toThrow('Tool export not found');
  });
});

describe('gate (mcp-gate/server): a session under a policy that reads other headers', () => {
  it('sends list_changed when the new policy hides a tool by a header the old one never read', async () => {
    const policyGate = createGate({ policy: registryPolicy });
    const both = createBothErasEndpoint(policyGate);
    const endpoint = await listen(both.fetchBothEras);
    opened.push(both, endpoint);
    const client = await connectLegacy(endpoint, {}, { 'x-tier': 'free' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    const changed = new Promise<string>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve('list_changed')));
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('no notification'), 5_000).unref());
    // The old rule stays, so echo (hidden by a header the old policy never read) is the only change.
    const paidEcho = { id: 'paid-echo', effect: 'deny' as const, appliesTo: { names: ['echo'] }, when: { '==': [{ var: 'request.headers.x-tier' }, 'free'] } };
    await policyGate.setPolicy({ ...registryPolicyDocument, rules: [...(registryPolicyDocument.rules ?? []), paidEcho] });
    expect(await Promise.race([changed, bounded])).toBe('list_changed');
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('echo');
  });
});

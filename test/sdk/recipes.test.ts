import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { createGate, gate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { connectInMemory } from './helpers.js';
import { startHttp, type HttpHarness } from './http-server.js';

// Every recipe in docs/sdk.md, run as written there.

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function toolNamesOverHttp(path: string, headers: Record<string, string>): Promise<string[]> {
  const client = new Client({ name: 'recipe-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(harness!.url(path), { requestInit: { headers } }));
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  await client.close();
  return names;
}

function serverWith(tools: Record<string, object>): () => McpServer {
  return () => {
    const server = new McpServer(serverInfo);
    for (const [name, meta] of Object.entries(tools)) server.registerTool(name, { _meta: { 'mcp-gate': meta } }, async () => ({ content: [] }));
    return server;
  };
}

describe('docs/sdk.md recipes', () => {
  it('canary by header', async () => {
    const policy: PolicyDocument = {
      version: 1,
      default: 'allow',
      rules: [{ id: 'canary-by-header', effect: 'deny', appliesTo: { tags: ['canary'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } }],
    };
    harness = await startHttp('stateful', serverWith({ search: {}, 'search-next': { tags: ['canary'] } }), createGate({ policy }));
    expect(await toolNamesOverHttp('/mcp', { 'X-Canary': '1' })).toEqual(['search', 'search-next']);
    expect(await toolNamesOverHttp('/mcp', {})).toEqual(['search']);
  });

  it('beta group for callers whose token has the beta scope', async () => {
    const policy: PolicyDocument = {
      version: 1,
      default: 'allow',
      rules: [{ id: 'beta-scope', effect: 'deny', appliesTo: { groups: ['beta'] }, when: { '!': { in: ['beta', { var: 'auth.scopes' }] } } }],
    };
    const authenticate = (request: { headers: Record<string, unknown> }) =>
      request.headers['authorization'] === 'Bearer beta-token' ? { token: 'beta-token', clientId: 'tester', scopes: ['beta'], extra: { sub: 'user-1' } } : undefined;
    harness = await startHttp('stateful', serverWith({ report: {}, 'report-v2': { groups: ['beta'] } }), createGate({ policy }), authenticate);
    expect(await toolNamesOverHttp('/mcp', { Authorization: 'Bearer beta-token' })).toEqual(['report', 'report-v2']);
    expect(await toolNamesOverHttp('/mcp', {})).toEqual(['report']);
  });

  it('endpoint-scoped toolsets', async () => {
    const policy: PolicyDocument = { version: 1, default: 'allow', rules: [] };
    harness = await startHttp('stateless', serverWith({ search: {}, 'purge-cache': { endpoints: ['/mcp/admin'] } }), createGate({ policy }));
    expect(await toolNamesOverHttp('/mcp/admin', {})).toEqual(['search', 'purge-cache']);
    expect(await toolNamesOverHttp('/mcp', {})).toEqual(['search']);
  });

  it('percentage rollout keyed by a user header', async () => {
    const policy: PolicyDocument = {
      version: 1,
      default: 'allow',
      rules: [
        {
          id: 'rollout-20-percent',
          effect: 'deny',
          appliesTo: { tags: ['rollout'] },
          when: { '!=': [{ fractional: [{ var: 'request.headers.x-user-id' }, ['on', 20], ['off', 80]] }, 'on'] },
        },
      ],
    };
    harness = await startHttp('stateless', serverWith({ search: {}, 'smart-search': { tags: ['rollout'] } }), createGate({ policy }));
    const users = Array.from({ length: 40 }, (_, index) => `user-${index}`);
    const enabled: string[] = [];
    for (const user of users) if ((await toolNamesOverHttp('/mcp', { 'x-user-id': user })).includes('smart-search')) enabled.push(user);
    // Deterministic per user (same answer twice), and roughly a fifth of them.
    for (const user of enabled.slice(0, 3)) expect(await toolNamesOverHttp('/mcp', { 'x-user-id': user })).toContain('smart-search');
    expect(enabled.length).toBeGreaterThan(2);
    expect(enabled.length).toBeLessThan(20);
  });

  const capabilityCases: [string, ClientCapabilities][] = [
    ['sampling', { sampling: {} }],
    ['elicitation', { elicitation: {} }],
    ['roots', { roots: { listChanged: true } }],
    ['extensions.com.example/report-export', { extensions: { 'com.example/report-export': {} } } as ClientCapabilities],
  ];
  for (const [capability, declared] of capabilityCases) {
    it(`capability gating: ${capability}`, async () => {
      const server = new McpServer(serverInfo);
      gate(server, { policy: { version: 1, default: 'allow', rules: [] } });
      server.registerTool('needs-it', { _meta: { 'mcp-gate': { requires: { capabilities: [capability] } } } }, async () => ({ content: [] }));
      server.registerTool('plain', {}, async () => ({ content: [] }));
      const capable = await connectInMemory(server, declared);
      expect((await capable.client.listTools()).tools.map((tool) => tool.name)).toEqual(['needs-it', 'plain']);
      await capable.close();
      const other = new McpServer(serverInfo);
      gate(other, { policy: { version: 1, default: 'allow', rules: [] } });
      other.registerTool('needs-it', { _meta: { 'mcp-gate': { requires: { capabilities: [capability] } } } }, async () => ({ content: [] }));
      other.registerTool('plain', {}, async () => ({ content: [] }));
      const incapable = await connectInMemory(other, {});
      expect((await incapable.client.listTools()).tools.map((tool) => tool.name)).toEqual(['plain']);
      await incapable.close();
    });
  }
});

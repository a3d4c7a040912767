import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/core/context.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { startHttp, type HttpHarness } from './http-server.js';

const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary-by-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } }],
});

const seen: RequestContext[] = [];

function createMcpServer(): McpServer {
  const server = new McpServer(serverInfo);
  server.registerTool('search', {}, async () => ({ content: [{ type: 'text', text: 'search' }] }));
  server.registerTool('search-canary', { _meta: { 'mcp-gate': { groups: ['canary'] } } }, async () => ({ content: [] }));
  server.registerTool('reset', { _meta: { 'mcp-gate': { endpoints: ['/mcp/admin'] } } }, async () => ({ content: [] }));
  server.registerTool('summarize', { _meta: { 'mcp-gate': { requires: { capabilities: ['sampling'] } } } }, async () => ({ content: [] }));
  return server;
}

/** A policy that records the context of each evaluation, to check what the adapter built. */
const recording = {
  ...policy,
  evaluate(context: RequestContext, primitive: Parameters<typeof policy.evaluate>[1]) {
    seen.push(context);
    return policy.evaluate(context, primitive);
  },
  // Lists decide through forContext.
  forContext(context: RequestContext) {
    seen.push(context);
    return policy.forContext(context);
  },
};

async function connect(harness: HttpHarness, path: string, headers: Record<string, string>, capabilities: ClientCapabilities = {}) {
  const client = new Client({ name: 'http-client', version: '9.9.9' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(harness.url(path), { requestInit: { headers } }));
  return client;
}

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  seen.length = 0;
});

describe('gate over Streamable HTTP', () => {
  for (const mode of ['stateful', 'stateless'] as const) {
    it(`gates by header and endpoint (${mode})`, async () => {
      harness = await startHttp(mode, createMcpServer, createGate({ policy: recording }));
      const canary = await connect(harness, '/mcp', { 'X-Canary': '1' }, { sampling: {} });
      const regular = await connect(harness, '/mcp', {}, { sampling: {} });
      const admin = await connect(harness, '/mcp/admin', {}, { sampling: {} });
      const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
      // Stateless servers never see initialize, so capability-gated tools are denied (onMissingCapabilities: 'deny').
      const summarize = mode === 'stateful' ? ['summarize'] : [];
      expect(await names(canary)).toEqual(['search', 'search-canary', ...summarize]);
      expect(await names(regular)).toEqual(['search', ...summarize]);
      expect(await names(admin)).toEqual(['search', 'reset', ...summarize]);
      expect((await regular.callTool({ name: 'reset' })).content).toEqual([{ type: 'text', text: 'MCP error -32602: Tool reset not found' }]);
      expect((await admin.callTool({ name: 'reset' })).isError).toBeUndefined();

      const context = seen.find((candidate) => candidate.request.headers['x-canary'] === '1')!;
      expect(context.request.endpoint).toBe('/mcp');
      expect(Object.isFrozen(context) && Object.isFrozen(context.request.headers)).toBe(true);
      if (mode === 'stateful') {
        expect(context.request.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect(context.client).toEqual({ name: 'http-client', version: '9.9.9', capabilities: { sampling: {} } });
      } else {
        expect(context.request.sessionId).toBeUndefined();
        expect(context.client.capabilities).toBeUndefined();
      }
      await Promise.all([canary.close(), regular.close(), admin.close()]);
    });
  }

  it('treats stateless requests as capable with onMissingCapabilities: allow', async () => {
    harness = await startHttp('stateless', createMcpServer, createGate({ policy, onMissingCapabilities: 'allow' }));
    const client = await connect(harness, '/mcp', {});
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'summarize']);
    await client.close();
  });
});

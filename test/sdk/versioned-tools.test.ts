import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { gate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { connectInMemory } from './helpers.js';

// docs/sdk.md "Versioned tools": canary version for one client, stable for everyone else.
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary-only-for-canary', effect: 'deny', appliesTo: { tags: ['canary'] }, when: { '!=': [{ var: 'client.name' }, 'canary-client'] } }],
});

function createServer(): McpServer {
  const server = new McpServer(serverInfo);
  gate(server, { policy });
  server.registerTool(
    'search__1.4.0',
    { description: 'stable search', inputSchema: { q: z.string() }, _meta: { 'mcp-gate': { version: '1.4.0' } } },
    async ({ q }) => ({ content: [{ type: 'text', text: `v1:${q}` }] }),
  );
  server.registerTool(
    'search__2.0.0',
    { description: 'canary search', inputSchema: { q: z.string(), limit: z.number().optional() }, _meta: { 'mcp-gate': { version: '2.0.0', tags: ['canary'] } } },
    async ({ q }) => ({ content: [{ type: 'text', text: `v2:${q}` }] }),
  );
  server.registerTool('other', {}, async () => ({ content: [] }));
  return server;
}

describe('gate (versioned tools)', () => {
  it('shows exactly one version under the public name per request and routes calls to it', async () => {
    const canary = await connectInMemory(createServer(), {}, 'canary-client');
    const regular = await connectInMemory(createServer(), {}, 'regular-client');
    const canaryTools = (await canary.client.listTools()).tools;
    const regularTools = (await regular.client.listTools()).tools;
    expect(canaryTools.map((tool) => [tool.name, tool.description])).toEqual([['search', 'canary search'], ['other', undefined]]);
    expect(regularTools.map((tool) => [tool.name, tool.description])).toEqual([['search', 'stable search'], ['other', undefined]]);
    expect(Object.keys(regularTools[0]!.inputSchema.properties ?? {})).toEqual(['q']);
    expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v2:x' }]);
    expect((await regular.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
    await canary.close();
    await regular.close();
  });

  it('never lets an internal name reach the client', async () => {
    const regular = await connectInMemory(createServer(), {}, 'regular-client');
    expect((await regular.client.callTool({ name: 'search__1.4.0', arguments: { q: 'x' } })).content).toEqual([
      { type: 'text', text: 'MCP error -32602: Tool search__1.4.0 not found' },
    ]);
    const invalid = await regular.client.callTool({ name: 'search', arguments: { q: 1 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid)).toContain('Invalid arguments for tool search:');
    expect(JSON.stringify(invalid)).not.toContain('search__');
    await regular.close();
  });
});

describe('gate (versioned tools, disabled versions)', () => {
  it('serves an enabled version when the preferred one is disabled by the server', async () => {
    const server = createServer();
    (server as unknown as { _registeredTools: Record<string, { disable(): void }> })._registeredTools['search__2.0.0']!.disable();
    const canary = await connectInMemory(server, {}, 'canary-client');
    expect((await canary.client.listTools()).tools.map((tool) => [tool.name, tool.description])).toEqual([['search', 'stable search'], ['other', undefined]]);
    expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
    await canary.close();
  });
});

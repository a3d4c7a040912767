import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate, gate } from '../../src/sdk/index.js';
import { createFixtureServer, serverInfo } from './fixtures.js';
import { connectInMemory, outcome } from './helpers.js';

const hideSecretForB = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [
    { id: 'no-secret', description: 'internal only', effect: 'deny' as const, appliesTo: { names: ['secret*'] } },
    { id: 'b-sees-less', effect: 'deny' as const, appliesTo: { names: ['t4'] }, when: { '==': [{ var: 'client.name' }, 'b'] } },
  ],
};

function createServer(): McpServer {
  const server = new McpServer(serverInfo);
  for (const name of ['t1', 'secret-tool', 't2', 't3', 't4']) server.registerTool(name, {}, async () => ({ content: [] }));
  return server;
}

describe('gate (pagination)', () => {
  it('filters first, then pages with opaque cursors', async () => {
    const server = createServer();
    gate(server, { policy: hideSecretForB, pageSize: 2 });
    const { client, close } = await connectInMemory(server, {}, 'a');
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['t1', 't2']);
    const second = await client.listTools({ cursor: first.nextCursor! });
    expect(second.tools.map((tool) => tool.name)).toEqual(['t3', 't4']);
    expect(second.nextCursor).toBeUndefined();
    expect(await outcome(client.listTools({ cursor: 'forged' }))).toMatchObject({ error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Invalid cursor' } });
    await close();
  });

  it('rejects a cursor under another policy revision or another context', async () => {
    const gateHandle = createGate({ policy: hideSecretForB, pageSize: 1 });
    const [serverA, serverB] = [createServer(), createServer()];
    gateHandle.install(serverA);
    gateHandle.install(serverB);
    const a = await connectInMemory(serverA, {}, 'a');
    const b = await connectInMemory(serverB, {}, 'b');
    const cursor = (await a.client.listTools()).nextCursor!;
    expect(await outcome(b.client.listTools({ cursor }))).toMatchObject({ error: { code: -32602 } });
    expect((await a.client.listTools({ cursor })).tools.map((tool) => tool.name)).toEqual(['t2']);
    await gateHandle.setPolicy({ ...hideSecretForB, description: 'new revision' });
    expect(await outcome(a.client.listTools({ cursor }))).toMatchObject({ error: { code: -32602 } });
    await a.close();
    await b.close();
  });

  it('returns one page and ignores cursors without a page size, as the SDK does', async () => {
    const server = createServer();
    gate(server, { policy: hideSecretForB });
    const { client, close } = await connectInMemory(server, {}, 'a');
    const listed = await client.listTools({ cursor: 'anything' });
    expect(listed.tools).toHaveLength(4);
    expect(listed.nextCursor).toBeUndefined();
    await close();
  });
});

describe("gate (denied: 'explain')", () => {
  it("returns the decision's message instead of the unknown-name answer", async () => {
    const server = createFixtureServer();
    const policy = compilePolicy({
      version: 1,
      default: 'allow',
      rules: [{ id: 'admins-only', description: 'admin tools need the admin endpoint', effect: 'deny', appliesTo: { groups: ['admin'] } }],
    });
    gate(server, { policy, denied: 'explain', metadata: { 'prompt:secret-prompt': { groups: ['admin'] } } });
    const { client, close } = await connectInMemory(server);
    expect((await client.callTool({ name: 'admin-reset', arguments: { confirm: true } })).content).toEqual([
      { type: 'text', text: 'MCP error -32602: Tool admin-reset denied: denied by rule "admins-only": admin tools need the admin endpoint' },
    ]);
    expect(await outcome(client.getPrompt({ name: 'secret-prompt', arguments: { topic: 'x' } }))).toMatchObject({
      error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Prompt secret-prompt denied: denied by rule "admins-only": admin tools need the admin endpoint' },
    });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await close();
  });
});

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { connectInMemory, flush } from './helpers.js';

const allowEverything = { version: 1 as const, default: 'allow' as const, rules: [] };
const hideBetaFromB = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'beta-not-for-b', effect: 'deny' as const, appliesTo: { groups: ['beta'] }, when: { '==': [{ var: 'client.name' }, 'b'] } }],
};

function createServer(release?: Promise<void>): McpServer {
  const server = new McpServer(serverInfo);
  server.registerTool('stable', {}, async () => ({ content: [{ type: 'text', text: 'stable' }] }));
  server.registerTool('beta', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => {
    await release;
    return { content: [{ type: 'text', text: 'beta done' }] };
  });
  server.registerPrompt('beta-prompt', { _meta: { 'mcp-gate': { groups: ['beta'] } } } as never, () => ({ messages: [] }));
  return server;
}

describe('Gate.setPolicy', () => {
  it('sends list_changed only to sessions whose visible set changed, per list', async () => {
    // Installed after registration, so the prompt's annotation comes from the option (the SDK drops prompt _meta).
    const gate = createGate({ policy: allowEverything, metadata: { 'prompt:beta-prompt': { groups: ['beta'] } } });
    const [serverA, serverB] = [createServer(), createServer()];
    gate.install(serverA);
    gate.install(serverB);
    const a = await connectInMemory(serverA, {}, 'a');
    const b = await connectInMemory(serverB, {}, 'b');
    await a.client.listTools();
    await b.client.listTools();
    await gate.setPolicy(hideBetaFromB);
    await flush();
    expect(a.notifications).toEqual([]);
    expect(b.notifications.sort()).toEqual(['notifications/prompts/list_changed', 'notifications/tools/list_changed']);
    expect((await b.client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable']);
    expect((await a.client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable', 'beta']);
    // Same document again: nothing changes, nothing is sent.
    await gate.setPolicy(hideBetaFromB);
    await flush();
    expect(b.notifications).toHaveLength(2);
    await a.close();
    await b.close();
  });

  it('lets in-flight requests finish under the policy they started with', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gate = createGate({ policy: allowEverything });
    const server = createServer(released);
    gate.install(server);
    const b = await connectInMemory(server, {}, 'b');
    const inFlight = b.client.callTool({ name: 'beta' });
    await flush();
    await gate.setPolicy(hideBetaFromB);
    release();
    expect((await inFlight).content).toEqual([{ type: 'text', text: 'beta done' }]);
    expect((await b.client.callTool({ name: 'beta' })).content).toEqual([{ type: 'text', text: 'MCP error -32602: Tool beta not found' }]);
    expect(gate.policy.revision).toBe(compilePolicy(hideBetaFromB).revision);
    await b.close();
  });

  it('does not notify closed sessions', async () => {
    const gate = createGate({ policy: allowEverything });
    const server = createServer();
    gate.install(server);
    const b = await connectInMemory(server, {}, 'b');
    await b.client.listTools();
    await b.close();
    await expect(gate.setPolicy(hideBetaFromB)).resolves.toBeUndefined();
  });
});

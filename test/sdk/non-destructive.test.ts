import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gate } from '../../src/sdk/index.js';
import { createFixtureServer, serverInfo } from './fixtures.js';
import { connectInMemory, createTestPolicy, flush, hideNames, outcome } from './helpers.js';

const registryFields = ['_registeredTools', '_registeredPrompts', '_registeredResources', '_registeredResourceTemplates'] as const;

/** Keys, object identities and every own data field of each registration. */
function snapshotRegistries(server: McpServer) {
  const internals = server as unknown as Record<string, Record<string, Record<string, unknown>>>;
  return registryFields.map((field) =>
    Object.entries(internals[field]!).map(([key, registered]) => ({
      key,
      registered,
      fields: Object.fromEntries(Object.entries(registered).filter(([, value]) => typeof value !== 'function')),
    })),
  );
}

describe('gate (non-destructive)', () => {
  it('leaves every registry deep-equal and identical by reference, and sends no list_changed for traffic', async () => {
    const server = createFixtureServer();
    const before = snapshotRegistries(server);
    const frozenCopy = structuredClone(before.map((registry) => registry.map(({ key, fields }) => ({ key, fields: JSON.stringify(fields) }))));
    gate(server, { policy: hideNames('admin-reset', 'secret-prompt', 'secrets', 'admin-log') });
    const { client, notifications, close } = await connectInMemory(server);
    for (let round = 0; round < 3; round++) {
      await client.listTools();
      await client.callTool({ name: 'admin-reset', arguments: { confirm: true } });
      await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      await client.listPrompts();
      await outcome(client.getPrompt({ name: 'secret-prompt', arguments: { topic: 't' } }));
      await client.listResources();
      await client.listResourceTemplates();
      await outcome(client.readResource({ uri: 'file:///secrets.txt' }));
      await outcome(client.complete({ ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'topic', value: '' } }));
    }
    await flush();
    const after = snapshotRegistries(server);
    expect(after.map((registry) => registry.map(({ key, fields }) => ({ key, fields: JSON.stringify(fields) })))).toEqual(frozenCopy);
    after.forEach((registry, index) => registry.forEach(({ registered }, position) => expect(registered).toBe(before[index]![position]!.registered)));
    expect(notifications).toEqual([]);
    await close();
  });
});

describe('gate (registration order)', () => {
  const hideBeta = () => createTestPolicy((_context, primitive) => !primitive.groups.includes('beta'));

  it('gates primitives registered after gate() but before connect(), including the lazily installed completion handler', async () => {
    const server = new McpServer(serverInfo);
    gate(server, { policy: hideBeta() });
    server.registerTool('stable', { inputSchema: { q: z.string() } }, async () => ({ content: [] }));
    server.registerTool('fresh', { inputSchema: { q: z.string() }, _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
    // SDK 1.32 drops a prompt's `_meta`; the gate captures it because it was installed first.
    server.registerPrompt('beta-prompt', { argsSchema: { topic: completable(z.string(), () => ['a']) }, _meta: { 'mcp-gate': { groups: ['beta'] } } } as never, () => ({
      messages: [],
    }));
    const { client, close } = await connectInMemory(server);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable']);
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect(await outcome(client.complete({ ref: { type: 'ref/prompt', name: 'beta-prompt' }, argument: { name: 'topic', value: '' } }))).toMatchObject({
      error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Prompt beta-prompt not found' },
    });
    await close();
  });

  it('gates primitives registered after connect()', async () => {
    const server = new McpServer(serverInfo, { capabilities: { tools: {}, prompts: {}, resources: {} } });
    gate(server, { policy: hideBeta() });
    const { client, notifications, close } = await connectInMemory(server);
    server.registerTool('late', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
    server.registerTool('late-visible', {}, async () => ({ content: [] }));
    server.registerResource('late-doc', 'file:///late', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async (uri) => ({ contents: [{ uri: uri.href, text: '' }] }));
    await flush();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['late-visible']);
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.callTool({ name: 'late' })).content).toEqual([{ type: 'text', text: 'MCP error -32602: Tool late not found' }]);
    // Registration itself announces list changes (the SDK's doing), traffic does not.
    expect(notifications.filter((method) => method !== 'notifications/tools/list_changed' && method !== 'notifications/resources/list_changed')).toEqual([]);
    await close();
  });

  it('gates primitives registered before gate(), taking prompt metadata from the metadata option', async () => {
    const server = new McpServer(serverInfo);
    server.registerTool('fresh', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
    server.registerPrompt('beta-prompt', {}, () => ({ messages: [] }));
    server.registerPrompt('plain-prompt', {}, () => ({ messages: [] }));
    gate(server, { policy: hideBeta(), metadata: { 'prompt:beta-prompt': { groups: ['beta'] } } });
    const { client, close } = await connectInMemory(server);
    expect((await client.listTools()).tools).toEqual([]);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['plain-prompt']);
    await close();
  });

  it('gates a server whose handlers were installed by capabilities in its constructor', async () => {
    const server = new McpServer(serverInfo, { capabilities: { tools: {} } });
    server.registerTool('fresh', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
    gate(server, { policy: hideBeta() });
    const { client, close } = await connectInMemory(server);
    expect((await client.listTools()).tools).toEqual([]);
    await close();
  });
});

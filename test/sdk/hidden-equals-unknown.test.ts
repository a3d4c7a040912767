import { describe, expect, it } from 'vitest';
import { gate } from '../../src/sdk/index.js';
import { createFixtureServer, createServerWithout } from './fixtures.js';
import { connectInMemory, hideNames, outcome, type Connected } from './helpers.js';

const hidden = { tools: ['admin-reset'], prompts: ['secret-prompt'], resources: ['file:///secrets.txt'], templates: ['admin-log'] };

async function ask(connected: Connected) {
  const { client } = connected;
  return {
    tools: await outcome(client.listTools()),
    callHidden: await outcome(client.callTool({ name: 'admin-reset', arguments: { confirm: true } })),
    callHiddenBadArgs: await outcome(client.callTool({ name: 'admin-reset', arguments: { confirm: 'yes' } })),
    callVisible: await outcome(client.callTool({ name: 'echo', arguments: { text: 'hi' } })),
    prompts: await outcome(client.listPrompts()),
    getHidden: await outcome(client.getPrompt({ name: 'secret-prompt', arguments: { topic: 'x' } })),
    getVisible: await outcome(client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } })),
    resources: await outcome(client.listResources()),
    templates: await outcome(client.listResourceTemplates()),
    readHidden: await outcome(client.readResource({ uri: 'file:///secrets.txt' })),
    readHiddenTemplate: await outcome(client.readResource({ uri: 'logs://monday' })),
    readVisibleTemplate: await outcome(client.readResource({ uri: 'users://7/profile' })),
    completeHiddenPrompt: await outcome(client.complete({ ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'topic', value: 'a' } })),
    completeVisiblePrompt: await outcome(client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'A' } })),
    completeHiddenTemplate: await outcome(client.complete({ ref: { type: 'ref/resource', uri: 'logs://{day}' }, argument: { name: 'day', value: 'm' } })),
    completeHiddenResource: await outcome(client.complete({ ref: { type: 'ref/resource', uri: 'file:///secrets.txt' }, argument: { name: 'x', value: '' } })),
    completeVisibleTemplate: await outcome(client.complete({ ref: { type: 'ref/resource', uri: 'users://{id}/profile' }, argument: { name: 'id', value: '1' } })),
  };
}

describe('gate (hidden ≡ never registered)', () => {
  it('answers every method for hidden primitives exactly as a server without them does', async () => {
    const gatedServer = createFixtureServer();
    gate(gatedServer, { policy: hideNames('admin-reset', 'secret-prompt', 'secrets', 'admin-log') });
    const gated = await connectInMemory(gatedServer);
    const baseline = await connectInMemory(createServerWithout(hidden));
    const [gatedAnswers, baselineAnswers] = [await ask(gated), await ask(baseline)];
    // `_meta['mcp-gate']` is stripped by the gate; the ungated baseline still lists it.
    expect(JSON.stringify(gatedAnswers)).toBe(JSON.stringify(stripGateMeta(baselineAnswers)));
    expect(gatedAnswers.callHidden).toEqual({ result: { content: [{ type: 'text', text: 'MCP error -32602: Tool admin-reset not found' }], isError: true } });
    // The client prefixes the wire message ("MCP error -32602: …") once more when it rethrows.
    expect(gatedAnswers.getHidden).toMatchObject({ error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Prompt secret-prompt not found' } });
    await gated.close();
    await baseline.close();
  });

  it('answers a name that was never registered exactly as the SDK does', async () => {
    const gatedServer = createFixtureServer();
    gate(gatedServer, { policy: hideNames() });
    const gated = await connectInMemory(gatedServer);
    const baseline = await connectInMemory(createFixtureServer());
    for (const connected of [gated, baseline]) {
      const answers = [
        await outcome(connected.client.callTool({ name: 'nope', arguments: {} })),
        await outcome(connected.client.getPrompt({ name: 'nope' })),
        await outcome(connected.client.readResource({ uri: 'file:///nope' })),
      ];
      expect(answers).toEqual([
        { result: { content: [{ type: 'text', text: 'MCP error -32602: Tool nope not found' }], isError: true } },
        { error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Prompt nope not found', data: undefined } },
        { error: { code: -32602, message: 'MCP error -32602: MCP error -32602: Resource file:///nope not found', data: undefined } },
      ]);
    }
    await gated.close();
    await baseline.close();
  });
});

function stripGateMeta(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, item) => {
      if (key !== '_meta' || item === null || typeof item !== 'object') return item;
      const { 'mcp-gate': _annotation, ...rest } = item as Record<string, unknown>;
      return Object.keys(rest).length > 0 ? rest : undefined;
    }),
  );
}

describe('gate (resources/read routing)', () => {
  it('reads through the first visible matching template when the exact resource is hidden, as if it were never registered', async () => {
    const { McpServer, ResourceTemplate } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const build = (withSecret: boolean) => {
      const server = new McpServer({ name: 'r', version: '1' });
      if (withSecret) server.registerResource('secret', 'file:///secret.txt', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'hunter2' }] }));
      server.registerResource('hidden-files', new ResourceTemplate('file:///{name}', { list: undefined }), {}, async (uri) => ({
        contents: [{ uri: uri.href, text: 'hidden template' }],
      }));
      server.registerResource('files', new ResourceTemplate('file:///{name}', { list: undefined }), {}, async (uri, { name }) => ({
        contents: [{ uri: uri.href, text: `file ${String(name)}` }],
      }));
      return server;
    };
    const gatedServer = build(true);
    gate(gatedServer, { policy: hideNames('secret', 'hidden-files') });
    const baselineServer = build(false);
    (baselineServer as unknown as { _registeredResourceTemplates: Record<string, { remove(): void }> })._registeredResourceTemplates['hidden-files']!.remove();
    const gated = await connectInMemory(gatedServer);
    const baseline = await connectInMemory(baselineServer);
    const read = (connected: Connected) => outcome(connected.client.readResource({ uri: 'file:///secret.txt' }));
    expect(await read(gated)).toEqual(await read(baseline));
    expect(await read(gated)).toEqual({ result: { contents: [{ uri: 'file:///secret.txt', text: 'file secret.txt' }] } });
    await gated.close();
    await baseline.close();
  });
});

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { MetadataError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { gate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { allowAll, connectInMemory } from './helpers.js';

describe('gate (metadata validation)', () => {
  it('rejects invalid _meta annotations at install, naming the primitive and every bad field', () => {
    const server = new McpServer(serverInfo);
    server.registerTool('bad', { _meta: { 'mcp-gate': { groups: 'beta', requires: { capabilities: [''] } } } }, async () => ({ content: [] }));
    let thrown: unknown;
    try {
      gate(server, { policy: allowAll() });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MetadataError);
    expect((thrown as MetadataError).message).toBe(
      [
        'invalid metadata of tool "bad" (2 issues):',
        '  _meta["mcp-gate"].groups: Invalid input: expected array, received string',
        '  _meta["mcp-gate"].requires.capabilities[0]: Too small: expected string to have >=1 characters',
      ].join('\n'),
    );
    expect((thrown as MetadataError).issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['invalid_metadata', '_meta["mcp-gate"].groups'],
      ['invalid_metadata', '_meta["mcp-gate"].requires.capabilities[0]'],
    ]);
  });

  it('rejects an invalid annotation registered after gate() before the SDK stores it', () => {
    const server = new McpServer(serverInfo);
    gate(server, { policy: allowAll() });
    expect(() => server.registerPrompt('p', { _meta: { 'mcp-gate': { tags: [1] } } } as never, () => ({ messages: [] }))).toThrow(
      'invalid metadata of prompt "p" (1 issue):\n  _meta["mcp-gate"].tags[0]: Invalid input: expected string, received number',
    );
    expect(Object.keys((server as unknown as { _registeredPrompts: object })._registeredPrompts)).toEqual([]);
  });

  it('rejects metadata option keys that name no kind', () => {
    expect(() => gate(new McpServer(serverInfo), { policy: allowAll(), metadata: { 'tools:x': {} } })).toThrow(
      'invalid metadata of "tools:x" (1 issue):\n  metadata["tools:x"]: key must be "tool:NAME", "prompt:NAME", "resource:URI" or "template:NAME"',
    );
    expect(() => gate(new McpServer(serverInfo), { policy: allowAll(), metadata: { 'resource:file:///a': { endpoints: 'x' } as never } })).toThrow(
      'invalid metadata of resource "file:///a" (1 issue):\n  metadata["resource:file:///a"].endpoints: Invalid input: expected array, received string',
    );
  });
});

describe('gate (metadata in lists)', () => {
  function createAnnotatedServer(): McpServer {
    const server = new McpServer(serverInfo);
    server.registerTool('sampler', { _meta: { 'mcp-gate': { requires: { capabilities: ['sampling'] } }, keep: true } }, async () => ({ content: [] }));
    server.registerTool('plain', { _meta: { 'mcp-gate': { tags: ['x'] } } }, async () => ({ content: [] }));
    server.registerResource('doc', 'file:///doc', { _meta: { 'mcp-gate': { tags: ['docs'] } } }, async (uri) => ({ contents: [{ uri: uri.href, text: '' }] }));
    server.registerResource('tpl', new ResourceTemplate('t://{x}', { list: undefined }), { _meta: { 'mcp-gate': { tags: ['t'] } } }, async (uri) => ({
      contents: [{ uri: uri.href, text: '' }],
    }));
    return server;
  }

  it('strips the gate annotation from every list and keeps other _meta keys', async () => {
    const server = createAnnotatedServer();
    gate(server, { policy: compilePolicy({ version: 1, default: 'allow', rules: [] }) });
    const { client, close } = await connectInMemory(server, { sampling: {} });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool._meta])).toEqual([
      ['sampler', { keep: true }],
      ['plain', undefined],
    ]);
    expect((await client.listResources()).resources[0]!._meta).toBeUndefined();
    expect((await client.listResourceTemplates()).resourceTemplates[0]!._meta).toBeUndefined();
    await close();
  });

  it('publishes required capabilities with exposeRequirements', async () => {
    const server = createAnnotatedServer();
    gate(server, { policy: compilePolicy({ version: 1, default: 'allow', rules: [] }), exposeRequirements: true });
    const { client, close } = await connectInMemory(server, { sampling: {} });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool._meta])).toEqual([
      ['sampler', { keep: true, 'io.modelcontextprotocol/requiredCapabilities': ['sampling'] }],
      ['plain', undefined],
    ]);
    await close();
  });

  it('lets the metadata option override fields of _meta', async () => {
    const server = createAnnotatedServer();
    const policy = compilePolicy({ version: 1, default: 'allow', rules: [{ id: 'no-x', effect: 'deny', appliesTo: { tags: ['x'] } }] });
    gate(server, { policy, metadata: { 'tool:sampler': { tags: ['x'] }, 'tool:plain': { tags: ['y'] } } });
    const { client, close } = await connectInMemory(server, { sampling: {} });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['plain']);
    await close();
  });
});

import { describe, expect, it } from 'vitest';
import { MetadataError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { answerOf, bindings, type Binding } from './bindings.js';

// Admin primitives are hidden from every caller; everything else is allowed.
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'no-admin', effect: 'deny', appliesTo: { groups: ['admin'] } }],
});

const ok = async () => ({ content: [{ type: 'text' as const, text: 'ran' }] });
const read = async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'read' }] });
const toolNames = (tools: { name: string }[]) => tools.map((tool) => tool.name);

/** The ungated server's answer to a call of a name it never registered, renamed to `name`. */
async function unknownToolAnswer(binding: Binding, name: string): Promise<string> {
  const server = binding.createServer();
  server.registerTool('other', {}, ok);
  const ungated = await binding.connect(server);
  const answer = JSON.stringify(await answerOf(ungated.client.callTool({ name: 'never-registered', arguments: {} })));
  await ungated.close();
  return answer.replaceAll('never-registered', name);
}

describe.each(bindings)('$name (registry changes)', (binding) => {
  it('re-reads an annotation changed in place when the server calls update() on the tool', async () => {
    const server = binding.createServer();
    binding.gate(server, { policy });
    const meta = { 'mcp-gate': { groups: ['public'] } };
    const tool = server.registerTool('reset', { description: 'resets', _meta: meta }, ok);
    server.registerTool('other', {}, ok);
    const session = await binding.connect(server);
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['reset', 'other']);
    meta['mcp-gate'].groups = ['admin'];
    tool.update({ description: 'resets everything' });
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['other']);
    expect(JSON.stringify(await answerOf(session.client.callTool({ name: 'reset', arguments: {} })))).toBe(await unknownToolAnswer(binding, 'reset'));
    await session.close();
  });

  it('re-reads an annotation changed in place when the same _meta object is passed to update() again', async () => {
    const server = binding.createServer();
    binding.gate(server, { policy });
    const meta = { 'mcp-gate': { groups: ['public'] as string[] } };
    const tool = server.registerTool('reset', { _meta: meta }, ok);
    const session = await binding.connect(server);
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['reset']);
    meta['mcp-gate'].groups.push('admin');
    tool.update({ _meta: meta });
    expect(toolNames((await session.client.listTools()).tools)).toEqual([]);
    meta['mcp-gate'].groups = ['public'];
    tool.update({ _meta: meta });
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['reset']);
    await session.close();
  });

  it('re-reads a resource annotation changed in place on update()', async () => {
    const server = binding.createServer();
    binding.gate(server, { policy });
    const metadata = { mimeType: 'text/plain', _meta: { 'mcp-gate': { groups: ['public'] } } };
    const resource = server.registerResource('audit', 'docs://audit', metadata, read);
    const session = await binding.connect(server);
    expect((await session.client.listResources()).resources.map((item) => item.uri)).toEqual(['docs://audit']);
    metadata._meta['mcp-gate'].groups = ['admin'];
    resource.update({ metadata });
    expect((await session.client.listResources()).resources).toEqual([]);
    await session.close();
  });

  it('re-reads a prompt annotation changed in place on update()', async () => {
    const server = binding.createServer();
    binding.gate(server, { policy });
    // SDK 1.32 drops a prompt's `_meta` from its registry; mcp-gate/sdk keeps the object it was given.
    const meta = { 'mcp-gate': { groups: ['public'] } };
    const prompt = server.registerPrompt('brief', { description: 'a brief', _meta: meta }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'brief' } }] }));
    const session = await binding.connect(server);
    expect((await session.client.listPrompts()).prompts.map((item) => item.name)).toEqual(['brief']);
    meta['mcp-gate'].groups = ['admin'];
    prompt.update({ description: 'an admin brief' });
    expect((await session.client.listPrompts()).prompts).toEqual([]);
    await session.close();
  });

  it('hides a primitive whose annotation became invalid in place, and reports it once', async () => {
    const server = binding.createServer();
    const reports = binding.gate(server, { policy });
    const meta: { 'mcp-gate': Record<string, unknown> } = { 'mcp-gate': { groups: ['public'] } };
    const tool = server.registerTool('reset', { _meta: meta }, ok);
    server.registerTool('other', {}, ok);
    const session = await binding.connect(server);
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['reset', 'other']);
    meta['mcp-gate']['groups'] = 'admin';
    tool.update({ description: 'now broken' });
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['other']);
    expect(JSON.stringify(await answerOf(session.client.callTool({ name: 'reset', arguments: {} })))).toBe(await unknownToolAnswer(binding, 'reset'));
    // Another change to the registry rebuilds the catalog; the same broken annotation is not news.
    server.registerTool('later', {}, ok);
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['other', 'later']);
    expect(reports.errors).toHaveLength(1);
    expect(reports.errors[0]).toBeInstanceOf(MetadataError);
    expect(reports.errors[0]!.message).toBe('invalid metadata of tool "reset" (1 issue):\n  _meta["mcp-gate"].groups: Invalid input: expected array, received string');
    meta['mcp-gate']['groups'] = ['public'];
    tool.update({});
    expect(toolNames((await session.client.listTools()).tools)).toEqual(['reset', 'other', 'later']);
    expect(reports.errors).toHaveLength(1);
    await session.close();
  });

  it('hides and reports an invalid annotation given to update() as a new _meta', async () => {
    const server = binding.createServer();
    const reports = binding.gate(server, { policy });
    const tool = server.registerTool('reset', {}, ok);
    const session = await binding.connect(server);
    tool.update({ _meta: { 'mcp-gate': { version: 2 } } });
    expect(toolNames((await session.client.listTools()).tools)).toEqual([]);
    expect(reports.errors.map((error) => error.message)).toEqual([
      'invalid metadata of tool "reset" (1 issue):\n  _meta["mcp-gate"].version: Invalid input: expected string, received number',
    ]);
    await session.close();
  });

  it('forgets a removed primitive and gates it afresh when it is registered again under the same name', async () => {
    const server = binding.createServer();
    binding.gate(server, { policy });
    const meta = { 'mcp-gate': { groups: ['public'] } };
    const tool = server.registerTool('reset', { _meta: meta }, ok);
    const session = await binding.connect(server);
    tool.remove();
    expect(toolNames((await session.client.listTools()).tools)).toEqual([]);
    meta['mcp-gate'].groups = ['admin'];
    server.registerTool('reset', { _meta: meta }, ok);
    expect(toolNames((await session.client.listTools()).tools)).toEqual([]);
    expect(JSON.stringify(await answerOf(session.client.callTool({ name: 'reset', arguments: {} })))).toBe(await unknownToolAnswer(binding, 'reset'));
    await session.close();
  });
});

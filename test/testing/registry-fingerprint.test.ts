import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { diffRegistry, fingerprintRegistry } from '../../src/testing/registry.js';

function createServer(): McpServer {
  const server = new McpServer({ name: 'fingerprinted', version: '1.0.0' });
  server.registerTool('search', { description: 'Search.', _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
  server.registerPrompt('greet', {}, () => ({ messages: [] }));
  return server;
}

const tools = (server: McpServer) => (server as unknown as { _registeredTools: Record<string, Record<string, unknown>> })._registeredTools;

describe('fingerprintRegistry / diffRegistry', () => {
  it('finds nothing on an untouched registry', () => {
    const server = createServer();
    expect(diffRegistry(fingerprintRegistry(server), fingerprintRegistry(server))).toEqual([]);
  });

  it('finds a replaced entry, a changed, added or removed field, data changed in place, and a new registration', () => {
    const cases: [string, (server: McpServer) => void, string][] = [
      ['replaced', (server) => void (tools(server)['search'] = { ...tools(server)['search'] }), '_registeredTools["search"] was replaced by another object'],
      ['changed', (server) => void (tools(server)['search']!['description'] = 'Other.'), '_registeredTools["search"].description changed'],
      ['added', (server) => void (tools(server)['search']!['extra'] = 1), '_registeredTools["search"].extra was added'],
      ['removed', (server) => void delete tools(server)['search']!['description'], '_registeredTools["search"].description changed'],
      [
        'in place',
        (server) => void (tools(server)['search']!['_meta'] as { 'mcp-gate': { groups: string[] } })['mcp-gate'].groups.push('admin'),
        '_registeredTools["search"]: its data (e.g. _meta, enabled, metadata) changed in place',
      ],
      ['registered', (server) => void server.registerTool('late', {}, async () => ({ content: [] })), 'registry keys changed'],
    ];
    for (const [name, change, difference] of cases) {
      const server = createServer();
      const before = fingerprintRegistry(server);
      change(server);
      expect(
        diffRegistry(before, fingerprintRegistry(server)).some((line) => line.startsWith(difference)),
        name,
      ).toBe(true);
    }
  });
});

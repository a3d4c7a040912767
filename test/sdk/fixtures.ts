import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const serverInfo = { name: 'fixture-server', version: '0.0.1' };

/** One of each primitive, with gate annotations; registered identically on gated and ungated servers. */
export function registerFixtures(server: McpServer): void {
  server.registerTool(
    'echo',
    { description: 'Echoes text', inputSchema: { text: z.string() }, _meta: { 'mcp-gate': { groups: ['public'] }, 'com.example/keep': 1 } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool('admin-reset', { description: 'Resets everything', inputSchema: { confirm: z.boolean() }, _meta: { 'mcp-gate': { groups: ['admin'] } } }, async () => ({
    content: [{ type: 'text', text: 'reset' }],
  }));
  server.registerPrompt(
    'greeting',
    { description: 'Greets', argsSchema: { name: completable(z.string(), (value) => ['Ada', 'Alan'].filter((name) => name.startsWith(value))) } },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }] }),
  );
  server.registerPrompt('secret-prompt', { description: 'Internal', argsSchema: { topic: completable(z.string(), () => ['alpha', 'beta']) } }, ({ topic }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `About ${topic}` } }],
  }));
  server.registerResource('readme', 'file:///readme.md', { mimeType: 'text/markdown', _meta: { 'mcp-gate': { tags: ['docs'] } } }, async (uri) => ({
    contents: [{ uri: uri.href, text: '# readme' }],
  }));
  server.registerResource('secrets', 'file:///secrets.txt', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'hunter2' }],
  }));
  server.registerResource(
    'user-profile',
    new ResourceTemplate('users://{id}/profile', {
      list: async () => ({ resources: [{ uri: 'users://1/profile', name: 'user 1' }] }),
      complete: { id: (value) => ['1', '2', '10'].filter((id) => id.startsWith(value)) },
    }),
    { description: 'A user profile', _meta: { 'mcp-gate': { groups: ['users'] } } },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `profile ${String(id)}` }] }),
  );
  server.registerResource(
    'admin-log',
    new ResourceTemplate('logs://{day}', { list: async () => ({ resources: [{ uri: 'logs://monday', name: 'monday' }] }), complete: { day: () => ['monday'] } }),
    { description: 'Admin logs' },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'log' }] }),
  );
}

export function createFixtureServer(): McpServer {
  const server = new McpServer(serverInfo);
  registerFixtures(server);
  return server;
}

/** A server with nothing registered under the hidden names: what "never registered" answers look like. */
export function createServerWithout(hidden: { tools?: string[]; prompts?: string[]; resources?: string[]; templates?: string[] }): McpServer {
  const server = createFixtureServer();
  const internals = server as unknown as Record<string, Record<string, { remove(): void }>>;
  // Removing on the *reference* server is fine: it is the ungated baseline, never gated.
  for (const name of hidden.tools ?? []) internals['_registeredTools']![name]!.remove();
  for (const name of hidden.prompts ?? []) internals['_registeredPrompts']![name]!.remove();
  for (const uri of hidden.resources ?? []) internals['_registeredResources']![uri]!.remove();
  for (const name of hidden.templates ?? []) internals['_registeredResourceTemplates']![name]!.remove();
  return server;
}

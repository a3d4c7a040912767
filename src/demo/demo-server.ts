import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PrimitiveAnnotation } from '../core/primitive-metadata.js';

// The demo server exercises every use of mcp-gate with its own metadata; policies/demo.json
// decides who sees what. Each primitive states its gating metadata next to its registration.

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const gated = (annotation: PrimitiveAnnotation) => ({ 'mcp-gate': annotation });

/** Prompt metadata goes through the gate's `metadata` option: SDK 1.32's registerPrompt drops `_meta`. */
export const demoMetadata: Record<string, PrimitiveAnnotation> = {
  'prompt:release_notes': { groups: ['beta'] },
};

export function createDemoServer(): McpServer {
  const server = new McpServer({ name: 'mcp-gate-demo', version: '1.0.0' }, { capabilities: { logging: {} } });

  server.registerTool(
    'search__1.0.0',
    { title: 'search v1', description: 'Search the docs (stable).', inputSchema: { query: z.string() }, _meta: gated({ version: '1.0.0' }) },
    async ({ query }) => text(`v1 results for "${query}"`),
  );
  server.registerTool(
    'search__2.0.0',
    {
      title: 'search v2',
      description: 'Search the docs with ranking (v2 rollout).',
      inputSchema: { query: z.string(), limit: z.number().int().optional() },
      _meta: gated({ version: '2.0.0', groups: ['rollout'] }),
    },
    async ({ query, limit }) => text(`v2 results for "${query}" (limit ${limit ?? 10})`),
  );
  server.registerTool(
    'deploy_preview',
    { description: 'Deploy a preview environment (canary).', inputSchema: { branch: z.string() }, _meta: gated({ groups: ['canary'] }) },
    async ({ branch }) => text(`preview of ${branch} deployed`),
  );
  server.registerTool('insights', { description: 'Usage insights (beta).', _meta: gated({ groups: ['beta'], tags: ['read-only'] }) }, async () => text('42 calls today'));
  server.registerTool(
    'summarize',
    {
      description: 'Summarize a text with the client’s model (needs sampling).',
      inputSchema: { text: z.string() },
      _meta: gated({ requires: { capabilities: ['sampling'] } }),
    },
    async ({ text: input }) => {
      const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize:\n${input}` } }], maxTokens: 200 });
      return text(reply.content.type === 'text' ? reply.content.text : '(non-text summary)');
    },
  );
  server.registerTool(
    'confirm_action',
    {
      description: 'Ask the user to confirm an action (needs elicitation).',
      inputSchema: { action: z.string() },
      _meta: gated({ requires: { capabilities: ['elicitation'] } }),
    },
    async ({ action }) => {
      const answer = await server.server.elicitInput({ message: `Confirm: ${action}?`, requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } } });
      return text(answer.action === 'accept' && answer.content?.['confirm'] === true ? `${action}: confirmed` : `${action}: not confirmed`);
    },
  );
  server.registerTool('admin_users', { description: 'List users (admin endpoint only).', _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () =>
    text('alice, bob'),
  );
  server.registerTool('admin_flush_cache', { description: 'Flush caches (admin endpoint only).', _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () =>
    text('cache flushed'),
  );

  server.registerPrompt('code_review', { description: 'Review a change.', argsSchema: { diff: z.string() } }, ({ diff }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Review this diff:\n${diff}` } }],
  }));
  server.registerPrompt('release_notes', { description: 'Draft release notes (beta).', argsSchema: { version: z.string() } }, ({ version }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Draft release notes for ${version}` } }],
  }));

  server.registerResource(
    'workspace',
    'workspace://files',
    { description: 'Files of the client’s roots (needs roots).', mimeType: 'text/plain', _meta: gated({ requires: { capabilities: ['roots'] } }) },
    async (uri) => ({ contents: [{ uri: uri.href, text: 'README.md\nsrc/' }] }),
  );
  server.registerResource('changelog', 'docs://changelog', { description: 'The changelog.', mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, text: '# Changelog\n- 1.0.0 first release' }],
  }));
  server.registerResource(
    'note',
    new ResourceTemplate('notes://{id}', { list: undefined, complete: { id: () => ['welcome', 'roadmap'] } }),
    { description: 'A note by id.', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
  );
  return server;
}

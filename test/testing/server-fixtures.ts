// v2 (McpServer of @modelcontextprotocol/server 2.4) counterparts of the v1 fixtures, so the same
// checks run through mcp-gate/server; random registries are `createRegistryServer(registry, { adapter: 'server' })`.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { PrimitiveAnnotation } from '../../src/core/primitive-metadata.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const gated = (annotation: PrimitiveAnnotation) => ({ 'mcp-gate': annotation });

// Built once: the invariant checks create a server per request, and building zod schemas was
// about a third of each creation. A schema is immutable, so instances may share it.
const schemas = {
  query: z.object({ query: z.string() }),
  rankedQuery: z.object({ query: z.string(), limit: z.number().int().optional() }),
  branch: z.object({ branch: z.string() }),
  text: z.object({ text: z.string() }),
  action: z.object({ action: z.string() }),
  diff: z.object({ diff: z.string() }),
  version: z.object({ version: z.string() }),
  customer: z.object({ customer: z.string() }),
  order: z.object({ order: z.string() }),
};

/** The demo server's registry (src/demo/demo-server.ts) on McpServer 2.4; v2 keeps prompts' `_meta`, so no `metadata` option. */
export function createDemoServerV2(): McpServer {
  const server = new McpServer({ name: 'mcp-gate-demo', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('search__1.0.0', { description: 'Search the docs (stable).', inputSchema: schemas.query, _meta: gated({ version: '1.0.0' }) }, async ({ query }) =>
    text(`v1 results for "${query}"`),
  );
  server.registerTool(
    'search__2.0.0',
    { description: 'Search the docs with ranking.', inputSchema: schemas.rankedQuery, _meta: gated({ version: '2.0.0', groups: ['rollout'] }) },
    async ({ query }) => text(`v2 results for "${query}"`),
  );
  server.registerTool('deploy_preview', { inputSchema: schemas.branch, _meta: gated({ groups: ['canary'] }) }, async ({ branch }) => text(`preview of ${branch}`));
  server.registerTool('insights', { _meta: gated({ groups: ['beta'], tags: ['read-only'] }) }, async () => text('42 calls today'));
  server.registerTool('summarize', { inputSchema: schemas.text, _meta: gated({ requires: { capabilities: ['sampling'] } }) }, async () => text('summary'));
  server.registerTool('confirm_action', { inputSchema: schemas.action, _meta: gated({ requires: { capabilities: ['elicitation'] } }) }, async () => text('confirmed'));
  server.registerTool('admin_users', { _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () => text('alice, bob'));
  server.registerTool('admin_flush_cache', { _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () => text('cache flushed'));
  server.registerPrompt('code_review', { argsSchema: schemas.diff }, ({ diff }) => ({ messages: [{ role: 'user', content: { type: 'text', text: diff } }] }));
  server.registerPrompt('release_notes', { argsSchema: schemas.version, _meta: gated({ groups: ['beta'] }) }, ({ version }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: version } }],
  }));
  server.registerResource('workspace', 'workspace://files', { mimeType: 'text/plain', _meta: gated({ requires: { capabilities: ['roots'] } }) }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'README.md' }],
  }));
  server.registerResource('changelog', 'docs://changelog', { mimeType: 'text/markdown' }, async (uri) => ({ contents: [{ uri: uri.href, text: '# Changelog' }] }));
  server.registerResource(
    'note',
    new ResourceTemplate('notes://{id}', { list: undefined, complete: { id: () => ['welcome', 'roadmap'] } }),
    { mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, text: 'note' }],
    }),
  );
  return server;
}

/** docs/testing.md's failing example on McpServer 2.4. */
export function createShopServerV2(): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' });
  server.registerTool('list_orders', { inputSchema: schemas.customer }, async ({ customer }) => text(`orders of ${customer}`));
  server.registerTool('refund_order', { inputSchema: schemas.order, _meta: gated({ groups: ['admin'] }) }, async ({ order }) => text(`refunded ${order}`));
  return server;
}

// v2 (McpServer of @modelcontextprotocol/server 2.4) counterparts of the kit's v1 fixtures, so the
// same checks run through mcp-gate/server.
import { completable, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { PrimitiveAnnotation } from '../../src/core/context.js';
import { registryMetadata, type AnnotationSource, type Registry } from '../../src/testing/index.js';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const gated = (annotation: PrimitiveAnnotation) => ({ 'mcp-gate': annotation });

/** The demo server's registry (src/demo/demo-server.ts) on McpServer 2.4; v2 keeps prompts' `_meta`, so no `metadata` option. */
export function createDemoServerV2(): McpServer {
  const server = new McpServer({ name: 'mcp-gate-demo', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('search__1.0.0', { description: 'Search the docs (stable).', inputSchema: z.object({ query: z.string() }), _meta: gated({ version: '1.0.0' }) }, async ({ query }) =>
    text(`v1 results for "${query}"`),
  );
  server.registerTool(
    'search__2.0.0',
    { description: 'Search the docs with ranking.', inputSchema: z.object({ query: z.string(), limit: z.number().int().optional() }), _meta: gated({ version: '2.0.0', groups: ['rollout'] }) },
    async ({ query }) => text(`v2 results for "${query}"`),
  );
  server.registerTool('deploy_preview', { inputSchema: z.object({ branch: z.string() }), _meta: gated({ groups: ['canary'] }) }, async ({ branch }) => text(`preview of ${branch}`));
  server.registerTool('insights', { _meta: gated({ groups: ['beta'], tags: ['read-only'] }) }, async () => text('42 calls today'));
  server.registerTool('summarize', { inputSchema: z.object({ text: z.string() }), _meta: gated({ requires: { capabilities: ['sampling'] } }) }, async () => text('summary'));
  server.registerTool('confirm_action', { inputSchema: z.object({ action: z.string() }), _meta: gated({ requires: { capabilities: ['elicitation'] } }) }, async () => text('confirmed'));
  server.registerTool('admin_users', { _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () => text('alice, bob'));
  server.registerTool('admin_flush_cache', { _meta: gated({ groups: ['admin'], endpoints: ['/mcp/admin'] }) }, async () => text('cache flushed'));
  server.registerPrompt('code_review', { argsSchema: z.object({ diff: z.string() }) }, ({ diff }) => ({ messages: [{ role: 'user', content: { type: 'text', text: diff } }] }));
  server.registerPrompt('release_notes', { argsSchema: z.object({ version: z.string() }), _meta: gated({ groups: ['beta'] }) }, ({ version }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: version } }],
  }));
  server.registerResource('workspace', 'workspace://files', { mimeType: 'text/plain', _meta: gated({ requires: { capabilities: ['roots'] } }) }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'README.md' }],
  }));
  server.registerResource('changelog', 'docs://changelog', { mimeType: 'text/markdown' }, async (uri) => ({ contents: [{ uri: uri.href, text: '# Changelog' }] }));
  server.registerResource('note', new ResourceTemplate('notes://{id}', { list: undefined, complete: { id: () => ['welcome', 'roadmap'] } }), { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'note' }],
  }));
  return server;
}

/** docs/testing.md's failing example on McpServer 2.4. */
export function createShopServerV2(): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' });
  server.registerTool('list_orders', { inputSchema: z.object({ customer: z.string() }) }, async ({ customer }) => text(`orders of ${customer}`));
  server.registerTool('refund_order', { inputSchema: z.object({ order: z.string() }), _meta: gated({ groups: ['admin'] }) }, async ({ order }) => text(`refunded ${order}`));
  return server;
}

const gateMeta = (annotation: PrimitiveAnnotation, source: AnnotationSource) => (source === 'meta' ? { _meta: gated(annotation) } : {});

/** `createRegistryServer` on McpServer 2.4; prompts carry their annotation in `_meta` (2.4 keeps it). */
export function createRegistryServerV2(registry: Registry): McpServer {
  const server = new McpServer({ name: 'mcp-gate-testing-registry', version: '1.0.0' });
  for (const tool of registry.tools) {
    const inputSchema = tool.requiresArguments ? z.object({ text: z.string() }) : undefined;
    server.registerTool(tool.key, { description: `tool ${tool.key}`, inputSchema, ...gateMeta(tool.annotation, tool.source) }, async () => text(`${tool.key} ran`));
  }
  for (const prompt of registry.prompts) {
    const argsSchema = z.object({ topic: prompt.completable ? completable(z.string(), () => ['alpha', 'beta']) : z.string().optional() });
    server.registerPrompt(prompt.name, { description: `prompt ${prompt.name}`, argsSchema, _meta: gated(prompt.annotation) }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: prompt.name } }],
    }));
  }
  for (const resource of registry.resources) {
    server.registerResource(resource.name, resource.uri, { mimeType: 'text/plain', ...gateMeta(resource.annotation, resource.source) }, async (uri) => ({
      contents: [{ uri: uri.href, text: resource.name }],
    }));
  }
  for (const template of registry.templates) {
    const variable = template.uriTemplate.slice(template.uriTemplate.indexOf('{') + 1, template.uriTemplate.indexOf('}'));
    const resourceTemplate = new ResourceTemplate(template.uriTemplate, {
      list: template.lists ? async () => ({ resources: [{ uri: template.uriTemplate.replace(`{${variable}}`, '1'), name: `${template.name} 1` }] }) : undefined,
      ...(template.completable ? { complete: { [variable]: () => ['1', '2'] } } : {}),
    });
    server.registerResource(template.name, resourceTemplate, { mimeType: 'text/plain', ...gateMeta(template.annotation, template.source) }, async (uri) => ({
      contents: [{ uri: uri.href, text: `${template.name} at ${uri.href}` }],
    }));
  }
  return server;
}

/** The gate's `metadata` option for a v2 registry server: as `registryMetadata`, but prompts speak through `_meta`. */
export function registryMetadataV2(registry: Registry): Record<string, PrimitiveAnnotation> {
  return Object.fromEntries(Object.entries(registryMetadata(registry)).filter(([key]) => !key.startsWith('prompt:')));
}

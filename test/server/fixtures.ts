import { completable, createMcpHandler, McpServer, ResourceTemplate, type McpRequestContext, type McpServerOptions } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { compilePolicy } from '../../src/index.js';
import type { PolicyDocument } from '../../src/index.js';
import { gate, type GateOptions } from '../../src/server/index.js';

export const reportExtension = 'com.example/report-export';

/** Tools, prompts, resources and templates, some hidden by `registryPolicy`; `hooks` let tests hold handlers. */
export interface RegistryHooks {
  /** Awaited inside every tool handler before it answers (the barrier tests park calls here). */
  beforeToolAnswer?: () => Promise<void>;
}

export function registerEverything(server: McpServer, hooks: RegistryHooks = {}): void {
  const answer = async (text: string) => {
    await hooks.beforeToolAnswer?.();
    return { content: [{ type: 'text' as const, text }] };
  };
  server.registerTool('echo', { description: 'echoes', inputSchema: z.object({ text: z.string() }) }, ({ text }) => answer(text));
  server.registerTool('admin-reset', { description: 'admin only', _meta: { 'mcp-gate': { groups: ['admin'] } } }, () => answer('reset'));
  server.registerTool('export', { description: 'needs the report extension', _meta: { 'mcp-gate': { requires: { capabilities: [`extensions.${reportExtension}`] } } } }, () =>
    answer('exported'),
  );
  // One public tool `report`, two versions: 2.0.0 only for clients declaring the extension.
  server.registerTool('report__1.0.0', { description: 'report v1', _meta: { 'mcp-gate': { version: '1.0.0' } } }, () => answer('disabled'));
  server.registerTool(
    'report__2.0.0',
    { description: 'report v2', _meta: { 'mcp-gate': { version: '2.0.0', requires: { capabilities: [`extensions.${reportExtension}`] } } } },
    () => answer('enabled'),
  );
  server.registerPrompt('greet', { argsSchema: z.object({ who: completable(z.string(), () => ['ada', 'alan']) }) }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `hello ${who}` } }],
  }));
  server.registerPrompt(
    'admin-brief',
    { argsSchema: z.object({ topic: completable(z.string(), () => ['ops']) }), _meta: { 'mcp-gate': { groups: ['admin'] } } },
    ({ topic }) => ({ messages: [{ role: 'user', content: { type: 'text', text: topic } }] }),
  );
  server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'readme' }] }));
  server.registerResource('audit', 'docs://audit', { _meta: { 'mcp-gate': { groups: ['admin'] } } }, (uri) => ({ contents: [{ uri: uri.href, text: 'audit' }] }));
  server.registerResource(
    'items',
    new ResourceTemplate('items://{id}', { list: () => ({ resources: [{ uri: 'items://1', name: 'item 1' }] }), complete: { id: () => ['1', '2'] } }),
    {},
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] }),
  );
  server.registerResource(
    'vault',
    new ResourceTemplate('vault://{id}', { list: () => ({ resources: [{ uri: 'vault://1', name: 'vault 1' }] }), complete: { id: () => ['9'] } }),
    { _meta: { 'mcp-gate': { groups: ['admin'] } } },
    (uri) => ({ contents: [{ uri: uri.href, text: 'vault' }] }),
  );
}

/** Admin primitives only for requests carrying `x-role: admin`; capability requirements enforced. */
export const registryPolicyDocument: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'admins-only', effect: 'deny', appliesTo: { groups: ['admin'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
};

export const registryPolicy = compilePolicy(registryPolicyDocument);

export function createServer(hooks: RegistryHooks = {}, serverOptions?: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'gated-v2', version: '1.0.0' }, serverOptions);
  registerEverything(server, hooks);
  return server;
}

/** The common stateless wiring: a fresh, gated McpServer per request inside createMcpHandler's factory. */
export function createGatedHandler(options: Partial<GateOptions> = {}, hooks: RegistryHooks = {}, serverOptions?: McpServerOptions, configure?: (server: McpServer) => void) {
  return createMcpHandler((request: McpRequestContext) => {
    const server = createServer(hooks, serverOptions);
    configure?.(server);
    gate(server, { policy: registryPolicy, ...options, request });
    return server;
  });
}

export function createUngatedHandler(register: (server: McpServer) => void = registerEverything) {
  return createMcpHandler(() => {
    const server = new McpServer({ name: 'gated-v2', version: '1.0.0' });
    register(server);
    return server;
  });
}

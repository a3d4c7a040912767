// A gated McpServer over stdio, spawned by stdio.test.ts (run with `node --import tsx`).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { gate } from '../../src/sdk/index.js';

const server = new McpServer({ name: 'stdio-fixture', version: '1.0.0' });
gate(server, {
  policy: {
    version: 1,
    default: 'allow',
    rules: [{ id: 'beta-for-beta-client', effect: 'deny', appliesTo: { groups: ['beta'] }, when: { '!=': [{ var: 'client.name' }, 'beta-client'] } }],
  },
});
server.registerTool('stable', {}, async () => ({ content: [{ type: 'text', text: 'stable' }] }));
server.registerTool('beta', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [{ type: 'text', text: 'beta' }] }));
server.registerTool('sampler', { _meta: { 'mcp-gate': { requires: { capabilities: ['sampling'] } } } }, async () => ({ content: [] }));
// Over stdio the endpoint is '', so an HTTP-only tool never shows.
server.registerTool('http-only', { _meta: { 'mcp-gate': { endpoints: ['/mcp'] } } }, async () => ({ content: [] }));
await server.connect(new StdioServerTransport());

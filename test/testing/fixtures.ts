import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PolicyDocument } from '../../src/core/policy/schema.js';

/** The shipped demo policy (policies/demo.json), as `npm start` serves it. */
export const demoPolicy = JSON.parse(readFileSync(new URL('../../policies/demo.json', import.meta.url), 'utf8')) as PolicyDocument;

/** docs/testing.md's failing example: a refund tool hidden from the list, by a rule that reads the method. */
export function createShopServer(): McpServer {
  const server = new McpServer({ name: 'shop', version: '1.0.0' });
  server.registerTool('list_orders', { inputSchema: { customer: z.string() } }, async ({ customer }) => ({ content: [{ type: 'text', text: `orders of ${customer}` }] }));
  server.registerTool('refund_order', { inputSchema: { order: z.string() }, _meta: { 'mcp-gate': { groups: ['admin'] } } }, async ({ order }) => ({
    content: [{ type: 'text', text: `refunded ${order}` }],
  }));
  return server;
}

export const listOnlyPolicy: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [
    {
      id: 'admins-only',
      description: 'hide admin tools from callers without the admin scope',
      effect: 'deny',
      appliesTo: { groups: ['admin'] },
      // The mistake: this only applies to listing, so the tool stays callable.
      when: { and: [{ '==': [{ var: 'request.method' }, 'tools/list'] }, { '!': { in: ['admin', { var: 'auth.scopes' }] } }] },
    },
  ],
};

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, expect, it } from 'vitest';
import { gate } from '../../src/sdk/index.js';

// An installation keeps the context plan of its last request while the policy view and the
// catalog stay the same (src/sdk/installation.ts). A registration made later may require a
// header the policy never reads: the plan must grow with the catalog, or the requirement is
// decided on a context that lacks the header.

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close();
});

it('builds contexts holding a header that a tool registered after the first request requires', async () => {
  const server = new McpServer({ name: 'plans', version: '1.0.0' });
  gate(server, { policy: { version: 1, default: 'allow', rules: [] } });
  server.registerTool('echo', { description: 'for everyone' }, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const deliver = serverTransport.onmessage!;
  const requestInfo = { headers: { 'x-tier': 'paid', accept: 'application/json' }, url: new URL('http://127.0.0.1/mcp') };
  serverTransport.onmessage = (message, extra) => deliver(message, { ...extra, requestInfo } as Parameters<typeof deliver>[1]);
  const client = new Client({ name: 'plan-client', version: '1.0.0' });
  await client.connect(clientTransport);
  opened.push(client);

  expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
  server.registerTool('export', { _meta: { 'mcp-gate': { requires: { headers: { 'x-tier': 'paid' } } } } }, () => ({ content: [{ type: 'text', text: 'exported' }] }));
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'export']);
  await expect(client.callTool({ name: 'export', arguments: {} })).resolves.toMatchObject({ content: [{ text: 'exported' }] });
});

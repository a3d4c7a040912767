// fastmcp's own HTTP server (start({ transportType: 'httpStream' }), mcp-proxy underneath) on
// 127.0.0.1, gated with gateFastMCP, reached by the real SDK Client over Streamable HTTP with a
// header that changes per request.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FastMCP } from 'fastmcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateFastMCP } from '../../src/lowlevel/index.js';
import { freePort } from './free-port.js';

const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'writers-write', effect: 'deny' as const, appliesTo: { groups: ['write'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'writer'] } }],
};

let role = 'reader';
const endpoints = new Set<string>();
const ran: string[] = [];
const fastmcp = new FastMCP({
  name: 'http-test',
  version: '1.0.0',
  ping: { enabled: false },
  roots: { enabled: false },
  logger: { debug() {}, error() {}, info() {}, log() {}, warn() {} },
});
fastmcp.addTool({ name: 'read-note', execute: async () => (ran.push('read-note'), 'note') });
fastmcp.addTool({ name: 'write-note', _meta: { 'mcp-gate': { groups: ['write'] } }, execute: async () => (ran.push('write-note'), 'written') });
let client: Client;

beforeAll(async () => {
  await gateFastMCP(fastmcp, { policy, onDecision: (event) => endpoints.add(event.context.request.endpoint) });
  const port = await freePort();
  await fastmcp.start({ transportType: 'httpStream', httpStream: { port, host: '127.0.0.1', endpoint: '/mcp' } });
  client = new Client({ name: 'http-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-role': role } }),
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await fastmcp.stop();
});

describe('gateFastMCP over fastmcp HTTP', () => {
  it('decides each request of one session on its own header', async () => {
    role = 'reader';
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['read-note']);
    const hidden = await client.callTool({ name: 'write-note', arguments: {} }).catch((error: Error) => error.message);
    // fastmcp's own McpError text on the wire ("MCP error -32601: Unknown tool: …"), which the client prefixes once more.
    expect(hidden).toBe('MCP error -32601: MCP error -32601: Unknown tool: write-note');
    role = 'writer';
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['read-note', 'write-note']);
    expect(await client.callTool({ name: 'write-note', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'written' }] });
    expect(ran).toEqual(['write-note']);
    expect([...endpoints]).toEqual(['/mcp']);
  });
});

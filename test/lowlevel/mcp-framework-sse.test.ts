// mcp-framework's own legacy SSE server (start() with the sse transport: a low-level Server per
// session) on 127.0.0.1, gated with gateMcpFramework, reached by the real SDK Client over HTTP+SSE
// with a header that changes per request, and by two clients at once.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { MCPServer } from 'mcp-framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateMcpFramework } from '../../src/lowlevel/index.js';
import { freePort } from './free-port.js';
import { buildMcpFramework, overlay, policy, ran } from './mcp-framework-server.js';

let port: number;
let server: MCPServer;
const clients: Client[] = [];
let running: Promise<void> | undefined;

/** A client whose requests carry `x-role: <role.value>`, read when each request is sent. */
async function connect(role: { value: string }): Promise<Client> {
  const client = new Client({ name: 'sse-client', version: '1.0.0' });
  const withRole = (input: string | URL, init?: RequestInit) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-role': role.value } });
  await client.connect(new SSEClientTransport(new URL(`http://127.0.0.1:${port}/sse`), { fetch: withRole }));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  port = await freePort();
  server = buildMcpFramework(true, { transport: { type: 'sse', options: { host: '127.0.0.1', port, health: { enabled: true, path: '/health' } } } });
  await gateMcpFramework(server, { policy, overlay });
  // start() resolves only when the server stops: wait (at most 10 s) for its health endpoint instead.
  running = server.start();
  for (let attempt = 0; ; attempt++) {
    const healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (attempt === 200) throw new Error(`mcp-framework's SSE server did not answer on 127.0.0.1:${port} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 20_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.stop();
  await running;
});

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

describe('gateMcpFramework over mcp-framework SSE', () => {
  it('decides each request of one session on its own header', async () => {
    const role = { value: 'guest' };
    const client = await connect(role);
    expect(names((await client.listTools()).tools)).toEqual(['public-tool']);
    role.value = 'admin';
    expect(names((await client.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    expect(names((await client.listPrompts()).prompts)).toEqual(['public-prompt', 'secret-prompt']);
    role.value = 'guest';
    expect(names((await client.listPrompts()).prompts)).toEqual(['public-prompt']);
  });

  it('keeps sessions apart and answers a hidden tool as an unknown one', async () => {
    const guest = await connect({ value: 'guest' });
    const admin = await connect({ value: 'admin' });
    ran.length = 0;
    await expect(guest.callTool({ name: 'secret-tool', arguments: {} })).rejects.toThrow('MCP error -32603: Unknown tool: secret-tool. Available tools: public-tool');
    expect(await admin.callTool({ name: 'secret-tool', arguments: {} })).toEqual({ content: [{ type: 'text', text: '"secret"' }] });
    expect(names((await guest.listResourceTemplates()).resourceTemplates)).toEqual(['public-template']);
    expect(ran).toEqual(['tool:secret-tool']);
  });
});

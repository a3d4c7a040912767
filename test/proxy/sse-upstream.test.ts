// A legacy HTTP+SSE upstream (protocol 2024-11-05's transport) behind `mcp-gate proxy
// --upstream-url URL --upstream-transport sse`: the recording upstream served by the v1 SDK's own
// SSEServerTransport on 127.0.0.1, one connection per upstream session.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { toolNames } from '../serve/harness.js';
import { connectClient, startProxy, waitFor, type RunningProxy } from './harness.js';

interface SseUpstream {
  readonly url: URL;
  /** Every JSON-RPC request body the upstream received, as sent. */
  readonly received: { method?: string; params?: Record<string, unknown> }[];
  readonly connections: () => number;
  close(): Promise<void>;
}

/** The SDK's documented legacy wiring: GET /sse opens a connection, POST /messages?sessionId=… carries the client's messages. */
async function startSseUpstream(port = 0): Promise<SseUpstream> {
  const transports = new Map<string, SSEServerTransport>();
  const received: SseUpstream['received'] = [];
  let connections = 0;
  const server: HttpServer = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method === 'GET' && url.pathname === '/sse') {
      connections++;
      const transport = new SSEServerTransport('/messages', response);
      transports.set(transport.sessionId, transport);
      response.on('close', () => transports.delete(transport.sessionId));
      void createRecordingUpstream().connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '');
    if (request.method === 'POST' && url.pathname === '/messages' && transport !== undefined) {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SseUpstream['received'][number];
        received.push(body);
        void transport.handlePostMessage(request, response, body);
      });
      return;
    }
    response.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${address.port}/sse`),
    received,
    connections: () => connections,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const gateArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/recording.overlay.json'];

describe('mcp-gate proxy --upstream-transport sse', () => {
  let upstream: SseUpstream;
  let proxy: RunningProxy;
  const clients: Client[] = [];

  beforeAll(async () => {
    upstream = await startSseUpstream();
    proxy = await startProxy([...gateArgs, '--upstream-url', upstream.url.href, '--upstream-transport', 'sse']);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await proxy?.stop();
    await upstream?.close();
  });

  it('gates the legacy upstream: lists filtered, visible calls relayed, hidden ones answered as unknown and never sent', async () => {
    const visitor = await connectClient(proxy.url, { name: 'visitor-client' });
    clients.push(visitor);
    const names = await toolNames(visitor);
    expect(names).toContain('public-echo');
    expect(names.filter((name) => name.startsWith('secret-'))).toEqual([]);
    expect(JSON.stringify((await visitor.callTool({ name: 'public-echo', arguments: { message: 'over sse' } })).content)).toContain('echo: over sse');
    const hidden = await visitor.callTool({ name: 'secret-drop', arguments: { table: 'users' } });
    const unknown = await visitor.callTool({ name: 'never-registered', arguments: { table: 'users' } });
    expect(JSON.stringify(hidden).replace('secret-drop', 'NAME')).toBe(JSON.stringify(unknown).replace('never-registered', 'NAME'));
    expect(JSON.stringify(upstream.received)).not.toContain('secret-drop');

    const admin = await connectClient(proxy.url, { name: 'admin-client' });
    clients.push(admin);
    expect(await toolNames(admin)).toContain('secret-drop');
    // The startup check's connection and one per client session, each initialized as its client was.
    expect(upstream.connections()).toBe(3);
    const initializes = upstream.received.filter((message) => message.method === 'initialize').map((message) => (message.params?.['clientInfo'] as { name: string }).name);
    expect(initializes).toEqual(['mcp-gate-proxy-startup-check', 'visitor-client', 'admin-client']);
  });

  it('answers as unavailable while the upstream is down, and reconnects the same session once it is back', { timeout: 60_000 }, async () => {
    const client = await connectClient(proxy.url, { name: 'visitor-client' });
    clients.push(client);
    const echo = async (message: string) => JSON.stringify((await client.callTool({ name: 'public-echo', arguments: { message } })).content);
    expect(await echo('before')).toContain('echo: before');
    await upstream.close();
    await waitFor('the proxy to see the upstream end', () => (proxy.stderr().includes('the upstream session ended') ? true : undefined), 20_000);
    await expect(echo('anyone?')).rejects.toThrow('MCP error -32603: The upstream server is not available');
    upstream = await startSseUpstream(Number(upstream.url.port));
    // The back-off after the failures may hold the next start for up to 10 s.
    expect(await echo('after')).toContain('echo: after');
  });

  it('says what to pass when the URL of a legacy server is given without it', { timeout: 60_000 }, async () => {
    await expect(startProxy([...gateArgs, '--upstream-url', upstream.url.href])).rejects.toThrow(
      `mcp-gate proxy: cannot reach the upstream ${upstream.url.href}: Streamable HTTP error: Error POSTing to endpoint: not found (a server on the legacy HTTP+SSE transport takes --upstream-transport sse, with the URL of its event stream)`,
    );
  });
});

import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { createGate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';

const hosts: HttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

async function host(maxSessions: number): Promise<HttpHost> {
  const gate = createGate({ policy: { version: 1, default: 'allow' }, metadata: demoMetadata });
  const started = await startHttpHost({ createServer: createDemoServer, gate, maxSessions });
  hosts.push(started);
  return started;
}

interface RawAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly sessionId: string | undefined;
  readonly body: string;
}

/** One POST by hand: cheaper than an SDK Client for opening hundreds of sessions, and shows the bytes. */
function post(url: URL, message: unknown, sessionId?: string): Promise<RawAnswer> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }),
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const id = incoming.headers['mcp-session-id'];
          resolve({
            status: incoming.statusCode ?? 0,
            contentType: incoming.headers['content-type'],
            sessionId: typeof id === 'string' ? id : undefined,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    outgoing.setTimeout(5_000, () => outgoing.destroy(new Error('no answer within 5 s')));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const initialize = (name: string) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } },
});
const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

async function openSession(url: URL, name: string): Promise<string> {
  const answer = await post(url, initialize(name));
  expect(answer.status).toBe(200);
  return answer.sessionId!;
}

/** What the SDK's own transport answers for a session id it did not issue. */
async function sdkAnswerToUnknownSession(): Promise<{ status: number; contentType: string | null; body: string }> {
  const server = createDemoServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'issued' });
  await server.connect(transport);
  const { createServer } = await import('node:http');
  const httpServer = createServer((request, response) => void transport.handleRequest(request, response));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
  try {
    const url = new URL(`http://127.0.0.1:${(httpServer.address() as { port: number }).port}/mcp`);
    expect((await post(url, initialize('sdk'))).sessionId).toBe('issued');
    const answer = await post(url, ping, 'not-issued');
    return { status: answer.status, contentType: answer.contentType ?? null, body: answer.body };
  } finally {
    await server.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  }
}

describe('startHttpHost maxSessions', () => {
  it('keeps at most maxSessions open while 200 clients initialize, closing the least recently used', async () => {
    const started = await host(50);
    const ids: string[] = [];
    for (let index = 0; index < 200; index++) {
      ids.push(await openSession(started.url, `client-${index}`));
      expect(started.sessionCount).toBeLessThanOrEqual(50);
      // Session 0 stays in use, so it is never the least recently used one.
      if (index % 10 === 9) expect((await post(started.url, ping, ids[0])).status).toBe(200);
    }
    expect(started.sessionCount).toBe(50);
    expect(started.evictedCount).toBe(150);
    expect((await post(started.url, ping, ids[0])).status).toBe(200);
    for (const id of ids.slice(-49)) expect((await post(started.url, ping, id)).status).toBe(200);
    // Everything else was evicted, and answers as the SDK answers an id it never issued.
    const expected = await sdkAnswerToUnknownSession();
    expect(expected).toEqual({ status: 404, contentType: 'application/json', body: '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}' });
    for (const id of [ids[1]!, ids[100]!, ids[150]!]) {
      const answer = await post(started.url, ping, id);
      expect({ status: answer.status, contentType: answer.contentType ?? null, body: answer.body }).toEqual(expected);
    }
  });

  it('answers an evicted SDK client 404, and the client can initialize again', async () => {
    const started = await host(2);
    const evicted = new Client({ name: 'evicted', version: '1.0.0' });
    await evicted.connect(new StreamableHTTPClientTransport(started.url));
    expect((await evicted.listTools()).tools.length).toBeGreaterThan(0);
    await openSession(started.url, 'second');
    await openSession(started.url, 'third');
    expect(started.sessionCount).toBe(2);

    const failure = await evicted.listTools().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(404);
    await evicted.close();

    const again = new Client({ name: 'evicted', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(started.url));
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
    expect(started.sessionCount).toBe(2);
    await again.close();
  });

  it('rejects a maxSessions that is not a positive integer', async () => {
    const gate = createGate({ policy: { version: 1, default: 'allow' }, metadata: demoMetadata });
    await expect(startHttpHost({ createServer: createDemoServer, gate, maxSessions: 0 })).rejects.toThrow('startHttpHost: maxSessions must be a positive integer, got 0');
  });
});

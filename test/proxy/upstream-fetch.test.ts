// The proxy's fetch for HTTP upstreams (src/proxy/upstream-fetch.ts) against real node:http servers
// on 127.0.0.1: what the SDK's client transport relies on (a streamed event-stream body, a redirect
// left to it, aborting, network errors as fetch gives them), and what made it worth having (no
// listener left on a long-lived signal per request).
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { createUpstreamFetch } from '../../src/proxy/upstream-fetch.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ url: URL; sockets: Set<Socket> }> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), sockets };
}

const upstreamFetch = createUpstreamFetch();
const post = (url: URL, init: RequestInit = {}) =>
  upstreamFetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', redirect: 'manual', ...init });

it('sends the method, headers and body, and streams an event-stream answer as it comes', async () => {
  let seen: { method?: string; type?: string; body: string } = { body: '' };
  let sendSecond!: () => void;
  const { url } = await serve((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen = { method: request.method, type: request.headers['content-type'], body };
      response.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
      response.write('data: one\n\n');
      sendSecond = () => response.end('data: two\n\n');
    });
  });
  const response = await post(url);
  expect({ status: response.status, type: response.headers.get('content-type'), session: response.headers.get('mcp-session-id') }).toEqual({
    status: 200,
    type: 'text/event-stream',
    session: 's-1',
  });
  expect(seen).toEqual({ method: 'POST', type: 'application/json', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  // The first event arrives while the server still holds the second: the body is a stream, not a buffer.
  expect((await reader.read()).value).toBe('data: one\n\n');
  sendSecond();
  expect((await reader.read()).value).toBe('data: two\n\n');
  expect((await reader.read()).done).toBe(true);
});

it('returns a redirect as it is (the SDK follows those within the origin itself)', async () => {
  const { url } = await serve((_request, response) => response.writeHead(307, { location: '/elsewhere' }).end());
  const response = await post(url);
  expect({ status: response.status, location: response.headers.get('location') }).toEqual({ status: 307, location: '/elsewhere' });
});

it('hands a request it does not take to the global fetch, which follows the redirect', async () => {
  const { url } = await serve((request, response) => {
    if (request.url === '/mcp') response.writeHead(302, { location: '/there' }).end();
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('followed');
  });
  const response = await upstreamFetch(url, { method: 'GET' });
  expect(await response.text()).toBe('followed');
});

it('decodes a gzip-encoded answer and has no body for a 202', async () => {
  const { url } = await serve((request, response) => {
    if (request.headers['x-empty'] === '1') response.writeHead(202).end();
    else response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
  });
  expect(await (await post(url)).json()).toEqual({ ok: true });
  const accepted = await post(url, { headers: { 'x-empty': '1' } });
  expect({ status: accepted.status, body: await accepted.text() }).toEqual({ status: 202, body: '' });
});

it('fails as fetch fails: a TypeError naming the cause when nothing listens, an AbortError when aborted mid-answer', async () => {
  const { url } = await serve(() => undefined);
  const closed = new URL(url);
  servers[0]!.closeAllConnections();
  await new Promise((resolve) => servers.pop()!.close(resolve));
  const refused = await post(closed).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(TypeError);
  expect((refused as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });

  const { url: streaming } = await serve((_request, response) => void response.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: one\n\n'));
  const abort = new AbortController();
  const response = await post(streaming, { signal: abort.signal });
  const reader = response.body!.getReader();
  await reader.read();
  abort.abort();
  await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
});

it('keeps one connection for requests in turn, and leaves no listener on the signal every request carries', async () => {
  const { url, sockets } = await serve((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  const transportSignal = new AbortController().signal;
  for (let index = 0; index < 200; index++) await (await post(url, { signal: transportSignal })).text();
  expect(sockets.size).toBe(1);
  expect(getEventListeners(transportSignal, 'abort').length).toBeLessThanOrEqual(1);
});

it('sends a request once more on a new connection when the kept-alive one it reused is reset (the server closed it meanwhile)', async () => {
  const served: string[] = [];
  const { url, sockets } = await serve((request, response) => {
    const socket = request.socket as Socket & { answered?: boolean };
    // A connection is answered once; a request that comes again on it finds it closing and is reset.
    if (socket.answered === true) return void socket.destroy();
    socket.answered = true;
    served.push(request.headers['x-call'] as string);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await (await post(url, { headers: { 'x-call': 'first' } })).text();
  expect(await (await post(url, { headers: { 'x-call': 'second' } })).text()).toBe('{}');
  expect(served).toEqual(['first', 'second']);
  expect(sockets.size).toBe(2);
});

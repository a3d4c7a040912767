// The HTTP host holds an event-stream answer's headers back until its first event (up to
// headerHoldMs), so that a quick answer reaches the client in one write instead of two. Read here
// over a raw socket, as the bytes arrive: a quick tools/call comes as one chunk holding the
// headers and the result; a call that has not answered yet still gets its headers on their own.
import { connect, type Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import { openSession } from '../../bench/raw-mcp.js';

let host: HttpHost;
let session: string;
/** Lets the slow tool answer (set while it waits). */
let answerSlow: (() => void) | undefined;

beforeAll(async () => {
  const createServer = () => {
    const server = new McpServer({ name: 'writes', version: '1.0.0' });
    // Answered after a timer, as a proxied call is after the upstream's answer: the SDK's stream
    // has no event yet when its headers are written (an answer ready within the same turn is sent
    // in one write by Node and @hono/node-server already). 5 ms is well within headerHoldMs.
    server.registerTool('quick', {}, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { content: [{ type: 'text', text: 'quick' }] };
    });
    server.registerTool('slow', {}, async () => {
      await new Promise<void>((resolve) => (answerSlow = resolve));
      return { content: [{ type: 'text', text: 'slow' }] };
    });
    return server;
  };
  host = await startHttpHost({ createServer, gate: createGate({ policy: { version: 1, default: 'allow' } }) });
  session = await openSession(host.url);
});
afterAll(async () => {
  answerSlow?.();
  await host.close();
});

/** Sends one tools/call on a fresh connection; `chunks` holds what arrived so far, one entry per read. */
function rawCall(name: string): { socket: Socket; chunks: string[]; next(count: number): Promise<void> } {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } });
  const socket = connect(Number(host.url.port), '127.0.0.1');
  const chunks: string[] = [];
  const waiters: (() => void)[] = [];
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    chunks.push(chunk);
    for (const wake of waiters.splice(0)) wake();
  });
  socket.write(
    `POST ${host.url.pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Mcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const next = async (count: number) => {
    const deadline = Date.now() + 10_000;
    while (chunks.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${chunks.length} of ${count} chunks within 10 s: ${JSON.stringify(chunks)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return { socket, chunks, next };
}

it('sends a quick answer as one write: the headers with the result event', async () => {
  const call = rawCall('quick');
  await call.next(1);
  expect(call.chunks[0]).toMatch(
    /^HTTP\/1\.1 200 OK\r\n[\s\S]*content-type: text\/event-stream[\s\S]*\r\n\r\n[\s\S]*event: message\r?\ndata: \{"result":\{"content":\[\{"type":"text","text":"quick"\}\]\},"jsonrpc":"2\.0","id":7\}/i,
  );
  call.socket.destroy();
});

it('still sends the headers of an answer that is not ready, before its result', async () => {
  const call = rawCall('slow');
  // The slow tool answers only once the headers have arrived on their own.
  await call.next(1);
  expect(call.chunks[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
  expect(call.chunks.join('')).not.toContain('"slow"');
  answerSlow!();
  await call.next(2);
  expect(call.chunks.join('')).toContain('"text":"slow"');
  call.socket.destroy();
});

// startHttpHost reads a POST's JSON body itself and hands it to the SDK transport as `parsedBody`
// (src/serve/request-body.ts). Whatever it does not parse must still get the SDK's own answer: each
// body here goes once through the host and once to the SDK's StreamableHTTPServerTransport served
// by a bare node:http server, and the two answers must be the same (status, content type, body).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import { readJsonBody } from '../../src/serve/request-body.js';

const makeServer = () => new McpServer({ name: 'bodies', version: '1.0.0' });
let host: HttpHost;
let bare: Server;
let bareUrl: URL;

beforeAll(async () => {
  host = await startHttpHost({ createServer: makeServer, gate: createGate({ policy: { version: 1, default: 'allow' } }) });
  // The SDK's recommended stateful shape, reading the body itself: a new transport per request without a session.
  bare = createServer((incoming, outgoing) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'session' });
    void makeServer()
      .connect(transport)
      .then(() => transport.handleRequest(incoming, outgoing));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  bareUrl = new URL(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await host.close();
  bare.closeAllConnections();
  await new Promise((resolve) => bare.close(resolve));
});

interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** POSTs raw bytes (chunked unless a length is given) and reads the whole answer; 10 s at most. */
function postRaw(url: URL, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, contentType: incoming.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer within 10 s')));
    // A server may answer (413) and close before the whole body is sent: the answer is what counts.
    outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    outgoing.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bodies', version: '1.0.0' } },
});
const json = { 'content-type': 'application/json' };
const overBound = Buffer.alloc(4 * 1024 * 1024 + 10, 0x20);

const bodies: [string, Buffer, Record<string, string>][] = [
  ['JSON that does not parse', Buffer.from('{"jsonrpc":'), json],
  ['an empty body', Buffer.alloc(0), json],
  ['a body with a byte-order mark (the SDK decodes with TextDecoder, which drops it)', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(initialize)]), json],
  ['invalid UTF-8 inside a string', Buffer.concat([Buffer.from(initialize.slice(0, -3)), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]), json],
  ['a body over 4 MiB without a length (chunked)', overBound, json],
  ['a body over 4 MiB with its length declared', overBound, { ...json, 'content-length': String(overBound.length) }],
  ['another media type', Buffer.from(initialize), { 'content-type': 'text/plain' }],
  ['a media type with parameters', Buffer.from(initialize), { 'content-type': 'application/json; charset=utf-8' }],
  ['a message that is not JSON-RPC', Buffer.from('{"hello":"world"}'), json],
  ['a batch over 100 messages', Buffer.from(JSON.stringify(Array.from({ length: 101 }, () => JSON.parse(initialize) as unknown))), json],
  ['a well-formed initialize', Buffer.from(initialize), json],
];

describe('request bodies through startHttpHost', () => {
  it.each(bodies)('%s: answered as the SDK transport answers it', async (_name, body, headers) => {
    const [ours, sdks] = await Promise.all([postRaw(host.url, body, headers), postRaw(bareUrl, body, headers)]);
    const withoutSession = (answer: Answer) => ({ ...answer, body: answer.body.replace(/"name":"bodies"/g, '') });
    expect(withoutSession(ours)).toEqual(withoutSession(sdks));
  });

  it('reads and parses a JSON body itself (what spares the SDK its web-stream read), and leaves the rest to the SDK', async () => {
    const read: { parsed: unknown; rawBody: unknown }[] = [];
    const server = createServer((incoming, outgoing) => {
      void readJsonBody(incoming).then((parsed) => {
        read.push({ parsed, rawBody: (incoming as { rawBody?: Buffer }).rawBody?.toString('utf8') });
        outgoing.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    try {
      await postRaw(url, Buffer.from(initialize), json);
      await postRaw(url, Buffer.from('{"jsonrpc":'), json);
      await postRaw(url, Buffer.from(initialize), { 'content-type': 'text/plain' });
      expect(read).toEqual([
        { parsed: JSON.parse(initialize), rawBody: initialize },
        { parsed: undefined, rawBody: '{"jsonrpc":' },
        { parsed: undefined, rawBody: undefined },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

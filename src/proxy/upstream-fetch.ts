import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

// The SDK's Streamable HTTP client transport sends each upstream request with `fetch`. Node's
// fetch (undici) costs about twice the CPU of node:http for the same exchange (a WHATWG Request
// per call, header validation, a body stream for the request), and every request of a
// transport carries the transport's one long-lived AbortSignal, on which undici leaves a
// listener until the request is garbage-collected and counts them all on the next request
// (about a thousand between collections in bench/proxy-cpu.ts). The transport takes a `fetch`
// of our choosing: this one does what the SDK asks of it over node:http, and hands anything
// else to the global fetch unchanged.

/** Statuses whose answer has no body (RFC 9110), which a `Response` must be built without. */
const bodilessStatuses: ReadonlySet<number> = new Set([204, 205, 304]);

const decoders: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * A `fetch` for the SDK's client transports over node:http and node:https, with its own
 * kept-alive connections (idle ones do not keep the process alive). It takes what the SDK sends:
 * a URL, a string or byte body, and `redirect: 'manual'` (the SDK follows redirects itself, within
 * the origin); any other request goes to the global fetch. A redirect is returned as it is.
 */
export function createUpstreamFetch(): typeof fetch {
  // An idle kept-alive connection is dropped after 4 s (or a second before the server's own
  // `Keep-Alive: timeout=N`, which Node reads once a timeout is set): Node's servers close theirs
  // after 5 s, and a request sent on a connection the server is closing fails.
  const agents = { 'http:': new HttpAgent({ keepAlive: true, timeout: 4_000 }), 'https:': new HttpsAgent({ keepAlive: true, timeout: 4_000 }) };
  return (input, init) => {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
    const body = init?.body;
    const handled = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && init?.redirect === 'manual';
    if (!handled || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) return fetch(input, init);
    const method = init.method ?? 'GET';
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const agent = agents[url.protocol as 'http:' | 'https:'];
    const attempt = (isRetry: boolean): Promise<Response> =>
      new Promise<Response>((resolve, reject) => {
        let answered = false;
        const outgoing = send(url, { method, headers, agent, ...(init.signal ? { signal: init.signal } : {}) }, (incoming) => {
          answered = true;
          try {
            resolve(responseOf(incoming, method, init.signal ?? undefined));
          } catch (error) {
            incoming.destroy();
            reject(error as Error);
          }
        });
        outgoing.on('error', (error: NodeJS.ErrnoException) => {
          // A kept-alive connection the server closed just as it was reused (Node's documented race):
          // the server never read the request, so it is sent once more, on a new connection.
          if (!isRetry && !answered && outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
            attempt(true).then(resolve, reject);
            return;
          }
          // fetch rejects with a TypeError for a network failure; its cause says what failed.
          reject(error.name === 'AbortError' ? error : new TypeError(`fetch failed: ${error.message}`, { cause: error }));
        });
        outgoing.end(body ?? undefined);
      });
    return attempt(false);
  };
}

/** The `Response` fetch gives for an answer: its status, headers and (decoded) body as a web stream. */
function responseOf(incoming: IncomingMessage, method: string, signal: AbortSignal | undefined): Response {
  const status = incoming.statusCode ?? 0;
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) headers.append(incoming.rawHeaders[index]!, incoming.rawHeaders[index + 1]!);
  if (method === 'HEAD' || bodilessStatuses.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers });
  }
  // The request sends no Accept-Encoding of its own; an upstream that encodes anyway is decoded, as fetch does.
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  const decode = encoding === undefined || encoding === 'identity' ? undefined : decoders[encoding];
  if (encoding !== undefined && encoding !== 'identity' && decode === undefined) throw new TypeError(`fetch failed: unsupported content-encoding ${encoding}`);
  const stream: Readable = decode === undefined ? incoming : incoming.pipe(decode());
  if (stream !== incoming) incoming.on('error', (error) => stream.destroy(error));
  if (signal !== undefined) {
    // Aborted while the body is read, fetch's body fails with the signal's reason (an AbortError), not a reset socket.
    const abort = () => stream.destroy(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    stream.once('close', () => signal.removeEventListener('abort', abort));
  }
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status, statusText: incoming.statusMessage ?? '', headers });
}

/** The proxy's one fetch for its HTTP upstreams: sessions' transports and stateless requests share its kept-alive connections. */
export const upstreamFetch = createUpstreamFetch();

// The downstream side of a 2026-07-28 stateless request in `mcp-gate proxy`: one HTTP POST, one
// JSON-RPC request with its `_meta` envelope, one answer, no session. Its context is its own
// envelope (client info, capabilities, protocol version) plus its HTTP headers, endpoint and
// verified token; it goes through the wire binding like a 2025-era session's request does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContextInput } from '../core/context.js';
import { authOfToken, type VerifiedToken } from '../adapter/token-auth.js';
import { ladderStatus, progressNotification, progressTokenOf, shapeStatelessResult, statelessContextInput, statelessErrorOf } from './stateless-answers.js';
import type { StatelessConnections } from './stateless-connections.js';
import type { StatelessListeners } from './stateless-listen.js';
import { HttpListenSink } from './stateless-listen-sinks.js';
import { envelopeMetaOf, statelessProtocolVersion, withCallHeaders } from './stateless-upstream.js';

export interface StatelessRequestOptions {
  readonly connections: StatelessConnections;
  /** Change streams (stateless-listen.ts). */
  readonly listeners: StatelessListeners;
  /** The headers the upstream gets for a request with these downstream headers (--upstream-header, --forward-header). */
  readonly upstreamHeaders: (downstream: Readonly<Record<string, string | string[] | undefined>>) => Readonly<Record<string, string>>;
  readonly onError: (error: unknown) => void;
  /** How long a forwarded request may take. */
  readonly timeoutMs?: number | undefined;
}

/** The largest request body read (the SDKs' own limit for a JSON-RPC POST). */
const maxBodyBytes = 4 * 1024 * 1024;

const revision = /^\d{4}-\d{2}-\d{2}$/;

/** What http-host.ts asks before it routes a request to a session: a 2026-07-28 (or later) request without a session id. */
export function isStatelessRequest(request: IncomingMessage): boolean {
  const version = request.headers['mcp-protocol-version'];
  // Revisions are dates, so later ones sort after it as strings; anything else ("9", "latest") is no
  // revision at all and goes where a 2025-era server would answer it.
  return typeof version === 'string' && revision.test(version) && version >= statelessProtocolVersion && request.headers['mcp-session-id'] === undefined;
}

/** Answers one stateless request (http-host.ts has checked its Host header and verified its token). */
export function createStatelessHandler(options: StatelessRequestOptions): (request: IncomingMessage, response: ServerResponse, endpoint: string) => Promise<void> {
  return async (request, response, endpoint) => {
    if (request.method !== 'POST') {
      // 2026-07-28 has no standalone stream to GET and no session to DELETE.
      response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(errorBody(null, -32000, 'Method not allowed.'));
      return;
    }
    const message = await readMessage(request);
    if (message === undefined) {
      response.writeHead(400, { 'content-type': 'application/json' }).end(errorBody(null, -32700, 'Parse error'));
      return;
    }
    const { id, method, params } = message;
    // A notification (no id): nothing in 2026-07-28 needs one relayed (cancelling is closing the request).
    if (id === undefined) {
      response.writeHead(202).end();
      return;
    }
    if (method === 'subscriptions/listen') {
      // A change stream, relayed only as far as this listener's context may see (stateless-listen.ts).
      const input = contextInput(request, method, endpoint, params);
      const served = await options.listeners.serve(new HttpListenSink(response), { id, params }, input, options.upstreamHeaders(request.headers));
      if (served === 'unavailable' && !response.headersSent) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(errorBody(id, -32603, 'The upstream server is not available'));
      }
      return;
    }
    const abort = new AbortController();
    response.on('close', () => abort.abort());
    const progress = progressStream(request, response, params);
    const envelope = envelopeMetaOf(params?.['_meta']);
    let body: string;
    let status = 200;
    try {
      const input = contextInput(request, method, endpoint, params);
      const result = await options.connections.use(envelope, options.upstreamHeaders(request.headers), (connection) =>
        withCallHeaders(request.headers, () =>
          connection.handle({ method, params, id }, input, { signal: abort.signal, timeoutMs: options.timeoutMs, onprogress: progress?.send }),
        ),
      );
      // The member order of `@modelcontextprotocol/server` 2.4's own answers, so a relayed answer reads as the upstream's.
      body = JSON.stringify({ result: shapeStatelessResult(method, result as Record<string, unknown>), jsonrpc: '2.0', id });
    } catch (error) {
      // The client closed the request (cancelling it): nobody to answer, and no fault of the upstream.
      if (abort.signal.aborted) return;
      const answer = statelessErrorOf(error, options.onError);
      body = errorBody(id, answer.code, answer.message, answer.data);
      status = ladderStatus[answer.code] ?? 200;
    }
    if (response.writableEnded) return;
    if (progress?.started) response.end(sseEvent(body));
    else response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  };
}

/**
 * For a request that asked for progress (`_meta.progressToken`) and accepts an event stream: a
 * listener that turns the answer into one, as a 2026-07-28 server does, at the first progress
 * the upstream reports for it, and sends each as `notifications/progress` with the client's own
 * token. The answer then ends the stream. Undefined otherwise (the answer is plain JSON).
 */
function progressStream(request: IncomingMessage, response: ServerResponse, params: Record<string, unknown> | undefined) {
  const progressToken = progressTokenOf(params);
  if (progressToken === undefined) return undefined;
  if (!request.headers.accept?.includes('text/event-stream')) return undefined;
  const stream = {
    started: false,
    send(progress: { progress: number; total?: number; message?: string }) {
      if (response.writableEnded) return;
      if (!stream.started) {
        stream.started = true;
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      }
      response.write(sseEvent(JSON.stringify(progressNotification(progress, progressToken))));
    },
  };
  return stream;
}

function sseEvent(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}

interface StatelessMessage {
  readonly id: string | number | undefined;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
}

/** The body as one JSON-RPC request or notification (2026-07-28 has no batches); undefined for anything else. */
async function readMessage(request: IncomingMessage): Promise<StatelessMessage | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { jsonrpc, id, method, params } = parsed as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (id !== undefined && typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) return undefined;
  return { id, method, params: params as Record<string, unknown> | undefined };
}

/** The request as a policy reads it: headers and endpoint from HTTP, the client from this request's own envelope. */
function contextInput(request: IncomingMessage, method: string, endpoint: string, params: Record<string, unknown> | undefined): RequestContextInput {
  const header = request.headers['mcp-protocol-version'];
  return statelessContextInput(method, params, {
    headers: request.headers,
    endpoint,
    protocolVersion: typeof header === 'string' ? header : undefined,
    // Where http-host.ts put the verified token (--jwks).
    auth: authOfToken((request as IncomingMessage & { auth?: VerifiedToken }).auth),
  });
}

/**
 * The errors `@modelcontextprotocol/server` 2.4 writes with `error` before `id`: those its
 * transport answers before the request reaches a server (an unsupported protocol version, a
 * body that is no request); a server's own errors, `-32601` included, have `id` first.
 */
const transportErrorCodes: ReadonlySet<number> = new Set([-32700, -32600, -32022]);

function errorBody(id: string | number | null, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify(transportErrorCodes.has(code) ? { jsonrpc: '2.0', error, id } : { jsonrpc: '2.0', id, error });
}

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey } from '../../src/adapter/envelope.js';

export const modernVersion = '2026-07-28';

export interface Endpoint {
  readonly url: string;
  close(): Promise<void>;
  /** Set for an in-process endpoint: requests go straight to the handler's web-standard face. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** The handler's `fetch` face without a socket, for property runs that send thousands of requests. */
export function inProcess(handler: McpHttpHandler): Endpoint {
  return { url: 'http://in-process.test', fetch: (request) => handler.fetch(request), close: () => handler.close() };
}

/** Serves a createMcpHandler handler on 127.0.0.1 at a random port, the way users mount it on node:http. */
export async function listen(
  handler: McpHttpHandler | ((request: Request) => Promise<Response>),
  authenticate?: (headers: IncomingHttpHeaders) => AuthInfo | undefined,
): Promise<Endpoint> {
  const nodeHandler = typeof handler === 'function' ? toNodeHandler({ fetch: handler } as unknown as McpHttpHandler) : toNodeHandler(handler);
  const server: HttpServer = createServer((request, response) => {
    // What a bearer-auth middleware does: verified auth info on `req.auth`, which toNodeHandler forwards.
    const auth = authenticate?.(request.headers);
    if (auth) (request as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    void nodeHandler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (typeof handler !== 'function') await handler.close();
    },
  };
}

export interface ModernRequestOptions {
  /** The request's declared capabilities; `null` omits the key from the envelope. */
  capabilities?: Record<string, unknown> | null;
  clientInfo?: { name: string; version: string };
  headers?: Record<string, string>;
  path?: string;
  id?: number;
}

export interface RpcAnswer {
  readonly status: number;
  readonly body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } & Record<string, unknown>;
  readonly headers: Headers;
  /** The body exactly as it came over the wire, for byte-for-byte comparisons. */
  readonly text: string;
}

const nameSource: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * One 2026-07-28 request over real HTTP: envelope in `_meta`, SEP-2243 standard headers, and a
 * bounded wait so a broken dispatch fails the test instead of hanging it.
 */
export async function postModern(endpoint: Endpoint, method: string, params: Record<string, unknown>, options: ModernRequestOptions = {}): Promise<RpcAnswer> {
  const envelope: Record<string, unknown> = { [protocolVersionMetaKey]: modernVersion, [clientInfoMetaKey]: options.clientInfo ?? { name: 'test-client', version: '1.0.0' } };
  if (options.capabilities !== null) envelope[clientCapabilitiesMetaKey] = options.capabilities ?? {};
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modernVersion,
    'mcp-method': method,
    ...options.headers,
  };
  const nameField = nameSource[method];
  if (nameField !== undefined && typeof params[nameField] === 'string') headers['mcp-name'] = params[nameField] as string;
  const body = { jsonrpc: '2.0', id: options.id ?? 1, method, params: { ...params, _meta: { ...(params['_meta'] as object), ...envelope } } };
  const request = new Request(`${endpoint.url}${options.path ?? '/mcp'}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const response = await (endpoint.fetch ?? fetch)(request);
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as RpcAnswer['body']), headers: response.headers, text };
}

/** Everything a client can observe of an answer except the clock: status, every header but `date`, the raw body. */
export function onTheWire(answer: RpcAnswer): { status: number; headers: Record<string, string>; text: string } {
  const headers: Record<string, string> = {};
  for (const [name, value] of answer.headers) if (name !== 'date') headers[name] = value;
  return { status: answer.status, headers, text: answer.text };
}

/** The parts of an answer that must match between a gated and an ungated server (not server info stamps). */
export function comparable(answer: RpcAnswer): unknown {
  const { result, error } = answer.body;
  if (error) return { status: answer.status, error };
  const { _meta: _ignored, ...rest } = result ?? {};
  return { status: answer.status, result: rest };
}

/** A one-shot barrier: every party waits until `parties` have arrived, or fails after a bounded wait. */
export function createBarrier(parties: number, timeoutMs = 8_000): { arrive(): Promise<void>; readonly arrived: number } {
  let arrived = 0;
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    get arrived() {
      return arrived;
    },
    async arrive() {
      if (++arrived === parties) release();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`barrier: ${arrived} of ${parties} arrived`)), timeoutMs);
      });
      try {
        await Promise.race([opened, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Test-only bearer scheme: `Authorization: Bearer scopes=a,b` yields those scopes for subject `user-1`. */
export function authenticateTestBearer(headers: IncomingHttpHeaders): AuthInfo | undefined {
  const match = /^Bearer scopes=(.*)$/.exec(headers.authorization ?? '');
  if (!match) return undefined;
  return { token: 'test', clientId: 'test-client', scopes: match[1]!.split(',').filter(Boolean), extra: { sub: 'user-1' } };
}

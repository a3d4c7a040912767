import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { BearerVerifier } from './bearer-auth.js';
import { bearerChallenge, callerOf, protectedResourceMetadata, protectedResourceOf, resourceMetadataPrefix, resourceMetadataUrl, TokenRejection } from './bearer-challenge.js';
import { holdHeadersForFirstEvent } from './deferred-headers.js';
import { readJsonBody } from './request-body.js';
import { defaultMaxSessions, defaultSessionIdleTimeoutMs } from './session-limits.js';

/** What the host serves a session with: an McpServer, or any SDK Protocol peer (the proxy's low-level Server). */
export type HostedServer = Pick<McpServer, 'connect' | 'close'>;

export interface HttpHostOptions<S extends HostedServer = McpServer> {
  /** Builds one McpServer; called once per session (stateful) or per request (stateless). */
  createServer: () => S;
  /** Installed on every server built (a Gate), so one `setPolicy` reaches every session. */
  gate: { install(server: S): void };
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port?: number;
  /** Serves `/mcp` and every path below it (`/mcp/admin`); the gate sees the path as the endpoint. */
  basePath?: string;
  /** One McpServer per request and no session ids (the SDK's stateless mode). Default false. */
  stateless?: boolean;
  /** Receives what failed while handling a request (a throwing `createServer`, say); the client gets a 500. */
  onError?: (error: unknown) => void;
  /**
   * Host header names (port aside) accepted; others get 403 before any server is built. Guards a
   * loopback server against DNS rebinding from web pages. Default `127.0.0.1`, `localhost`, `[::1]`.
   */
  allowedHostnames?: readonly string[];
  /**
   * A session that sends nothing for this long is closed (clients that never send DELETE would
   * otherwise keep their server alive for good). Default 5 minutes; 0 keeps idle sessions (they
   * are still bounded by `maxSessions`).
   */
  sessionIdleTimeoutMs?: number;
  /**
   * Open sessions at most (stateful mode). A new session beyond it closes the least recently used
   * one, whose client then gets 404 "Session not found" and must initialize again, as the MCP spec
   * says for an unknown session id. Each session holds one McpServer (about 100 kB with the demo
   * server, see docs/cli.md), so this bounds the host's memory. Default 1,000.
   */
  maxSessions?: number;
  /**
   * Verifies every request's bearer token before any session sees it (`--jwks`): without a valid
   * one the client gets 401 and a challenge pointing at the protected resource metadata this host
   * then serves; with one, the server sees the verified token as the request's `authInfo`. A
   * session answers only requests whose token names the caller that opened it.
   */
  bearer?: BearerVerifier;
  /**
   * Requests served without a session (`mcp-gate proxy`'s 2026-07-28 stateless requests): those
   * `accepts` picks are handed to `handle` after the Host and token checks, with the path as
   * their endpoint, instead of going to a session.
   */
  sessionless?: {
    accepts(request: IncomingMessage): boolean;
    handle(request: IncomingMessage, response: ServerResponse, endpoint: string): Promise<void>;
  };
}

export interface HttpHost {
  readonly url: URL;
  /** Open sessions (stateful mode). */
  readonly sessionCount: number;
  /** Sessions closed so far to make room under `maxSessions`. */
  readonly evictedCount: number;
  close(): Promise<void>;
}

export { defaultMaxSessions, defaultSessionIdleTimeoutMs } from './session-limits.js';

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: HostedServer;
  /** The caller whose token opened the session (with `bearer`), else undefined. */
  readonly caller: string | undefined;
  lastSeen: number;
}

const jsonRpcError = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });

const loopbackHostnames: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** The hostname of a Host header (`127.0.0.1:3000` → `127.0.0.1`), or undefined when there is none or it does not parse. */
function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Streamable HTTP on 127.0.0.1 in the SDK's recommended shapes: stateful = one McpServer per
 * session (the session id routes later requests), stateless = one per request.
 */
export async function startHttpHost<S extends HostedServer = McpServer>(options: HttpHostOptions<S>): Promise<HttpHost> {
  const basePath = options.basePath ?? '/mcp';
  const allowedHostnames = new Set(options.allowedHostnames ?? loopbackHostnames);
  const maxSessions = options.maxSessions ?? defaultMaxSessions;
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) throw new RangeError(`startHttpHost: maxSessions must be a positive integer, got ${maxSessions}`);
  // Least recently used first: a Map iterates in insertion order, and `touch` re-inserts.
  const sessions = new Map<string, Session>();
  let evictedCount = 0;
  const idleTimeout = options.sessionIdleTimeoutMs ?? defaultSessionIdleTimeoutMs;
  const sweeper =
    idleTimeout > 0 && !options.stateless
      ? setInterval(
          () => {
            const cutoff = Date.now() - idleTimeout;
            for (const [id, session] of sessions) {
              if (session.lastSeen >= cutoff) break; // the rest were seen later
              sessions.delete(id);
              closeQuietly(session);
            }
          },
          Math.min(idleTimeout, 60_000),
        ).unref()
      : undefined;
  const openServers = new Set<HostedServer>();

  /** Closing ends the session's streams and its server; its client learns of it from the next 404. */
  function closeQuietly(session: Session): void {
    session.transport.close().catch((error: unknown) => options.onError?.(error));
  }

  function touch(id: string, session: Session): void {
    session.lastSeen = Date.now();
    sessions.delete(id);
    sessions.set(id, session);
  }

  /** Makes room for one more session by closing the least recently used ones. */
  function evictForNewSession(): void {
    for (const [id, session] of sessions) {
      if (sessions.size < maxSessions) return;
      // Deleted now, not when the close settles, so the count never exceeds the bound.
      sessions.delete(id);
      evictedCount++;
      closeQuietly(session);
    }
  }

  async function connectNew(caller: string | undefined): Promise<StreamableHTTPServerTransport> {
    const server = options.createServer();
    options.gate.install(server);
    openServers.add(server);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: options.stateless ? undefined : () => randomUUID(),
      onsessioninitialized: (id) => {
        evictForNewSession();
        sessions.set(id, { transport, server, caller, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      openServers.delete(server);
    };
    await server.connect(transport);
    return transport;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const hostname = hostnameOf(request.headers.host);
    if (hostname === undefined || !allowedHostnames.has(hostname)) {
      response.writeHead(403, { 'content-type': 'application/json' }).end(jsonRpcError(-32000, 'Host not allowed'));
      return;
    }
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (options.bearer && (path === resourceMetadataPrefix || path.startsWith(`${resourceMetadataPrefix}/`)) && request.method === 'GET') {
      const metadata = protectedResourceMetadata(protectedResourceOf(options.bearer.audience, request, basePath), options.bearer.issuer);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(metadata));
      return;
    }
    if (path !== basePath && !path.startsWith(`${basePath}/`)) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found; MCP is served at ${basePath}\n`);
      return;
    }
    let caller: string | undefined;
    if (options.bearer) {
      const verified = await authenticate(options.bearer, request, response);
      if (verified === undefined) return;
      caller = callerOf(verified);
      // Where the SDK's transport looks for a verified token (it hands it on as `extra.authInfo`).
      (request as IncomingMessage & { auth?: unknown }).auth = verified;
    }
    // Hook: a request the sessionless handler takes never reaches a session (see `sessionless` above).
    if (options.sessionless?.accepts(request)) return options.sessionless.handle(request, response, path);
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && !options.stateless) {
      const session = sessions.get(sessionId);
      // Another caller's session is answered as one that does not exist (a session id is not a credential).
      if (!session || session.caller !== caller) {
        // The SDK transport's own answer to an unknown session id (closed, evicted or never issued).
        response.writeHead(404, { 'content-type': 'application/json' }).end(jsonRpcError(-32001, 'Session not found'));
        return;
      }
      touch(sessionId, session);
      if (request.method === 'POST') holdHeadersForFirstEvent(response);
      return session.transport.handleRequest(request, response, await readJsonBody(request));
    }
    const transport = await connectNew(caller);
    if (options.stateless) response.on('close', () => void transport.close());
    await transport.handleRequest(request, response, await readJsonBody(request));
    // Without a session id only an initialize opens a session; anything else was answered with an
    // error, and the server built for it must not stay connected.
    if (!options.stateless && transport.sessionId === undefined) await transport.close();
  }

  /** The request's verified token; or undefined once the refusal has been answered (never reaching a session). */
  async function authenticate(bearer: BearerVerifier, request: IncomingMessage, response: ServerResponse) {
    try {
      return await bearer.verify(request.headers.authorization);
    } catch (error) {
      const rejection = error instanceof TokenRejection ? error : new TokenRejection('the token could not be verified', 503, undefined, { cause: error });
      if (rejection.status === 503) options.onError?.(rejection.cause ?? rejection);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (rejection.status === 401) {
        headers['www-authenticate'] = bearerChallenge(resourceMetadataUrl(protectedResourceOf(bearer.audience, request, basePath)), rejection);
      }
      const code = rejection.status === 503 ? 'temporarily_unavailable' : rejection.errorCode;
      const body = { ...(code === undefined ? {} : { error: code }), error_description: rejection.message };
      response.writeHead(rejection.status, headers).end(JSON.stringify(body));
      return undefined;
    }
  }

  const httpServer: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.onError?.(error);
      // The detail goes to onError (the operator), not to whoever sent the request.
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' }).end(jsonRpcError(-32603, 'Internal error'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${basePath}`),
    get sessionCount() {
      return sessions.size;
    },
    get evictedCount() {
      return evictedCount;
    },
    async close() {
      clearInterval(sweeper);
      await Promise.all([...openServers].map((server) => server.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

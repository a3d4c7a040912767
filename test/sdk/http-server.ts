import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Gate } from '../../src/sdk/index.js';

export interface HttpHarness {
  readonly url: (path: string) => URL;
  readonly servers: McpServer[];
  close(): Promise<void>;
}

/**
 * Streamable HTTP on 127.0.0.1 (random port) at /mcp and /mcp/admin, the SDK's recommended
 * shapes: stateful = one McpServer per session, stateless = one per request. Every server is
 * installed on the same gate, so one setPolicy reaches all sessions.
 */
export async function startHttp(
  mode: 'stateful' | 'stateless',
  createMcpServer: () => McpServer,
  gate: Gate,
  authenticate?: (request: IncomingMessage) => AuthInfo | undefined,
): Promise<HttpHarness> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/mcp' && path !== '/mcp/admin') {
      response.writeHead(404).end();
      return;
    }
    // Stands in for an auth middleware: the SDK's node transport reads `req.auth`.
    if (authenticate) (request as IncomingMessage & { auth?: AuthInfo }).auth = authenticate(request);
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request, response);
    const server = createMcpServer();
    gate.install(server);
    servers.push(server);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: mode === 'stateful' ? () => randomUUID() : undefined,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    if (mode === 'stateless') response.on('close', () => void server.close());
    await transport.handleRequest(request, response);
  }

  const httpServer: Server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: (path) => new URL(`http://127.0.0.1:${port}${path}`),
    servers,
    async close() {
      await Promise.all(servers.map((server) => server.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

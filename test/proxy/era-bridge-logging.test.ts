// logging/setLevel in a 2025-era session bridged to a 2026-07-28-only upstream (docs/proxy.md, "The
// era bridge"): 2026-07-28 has no setLevel but a log level in each request's envelope
// (`io.modelcontextprotocol/logLevel`), and its server logs nothing for a request without one. A
// real `@modelcontextprotocol/server` 2.4 upstream (`legacy: 'reject'`) that records what it
// receives, and a real v1 SDK client over 127.0.0.1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientInfoMetaKey } from '../../src/adapter/envelope.js';
import { createWireGate, serveProxyHttp, type ProxyHttpServing } from '../../src/proxy/proxy-runtime.js';
import { listen, type Endpoint } from '../server/http.js';

const logLevelMetaKey = 'io.modelcontextprotocol/logLevel';
type Received = { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } };
/** Every JSON-RPC request the upstream received. */
const received: Received[] = [];
let upstream: Endpoint;
let serving: ProxyHttpServing;
const stop = new AbortController();

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'logging-v2', version: '1.0.0' }, { capabilities: { logging: {} } });
      server.registerTool('chatty', { description: 'logs at three levels' }, async (context) => {
        for (const level of ['debug', 'info', 'error'] as const) await context.mcpReq.log(level, `${level} from chatty`);
        return { content: [{ type: 'text' as const, text: 'said' }] };
      });
      return server;
    },
    { legacy: 'reject' },
  );
  upstream = await listen(async (request) => {
    const text = await request.clone().text();
    if (text !== '') received.push(JSON.parse(text) as Received);
    return handler.fetch(request);
  });
  const openUpstream = () => {
    throw new Error('a bridged session opens no 2025-era upstream session');
  };
  serving = await serveProxyHttp(
    createWireGate({ policy: { version: 1, default: 'allow', rules: [] } }),
    openUpstream,
    { port: 0, maxSessions: 10, sessionIdleTimeoutMs: 0, statelessUpstream: { url: new URL(`${upstream.url}/mcp`), headers: () => ({}) }, statelessOnly: true },
    stop.signal,
    () => undefined,
  );
}, 30_000);

afterAll(async () => {
  stop.abort();
  await serving?.close();
  await upstream?.close();
});

const callsFrom = (name: string) =>
  received.filter(({ method, params }) => method === 'tools/call' && (params?._meta?.[clientInfoMetaKey] as { name?: string } | undefined)?.name === name);

describe('logging/setLevel in a bridged session', () => {
  it("sends the level the client set in each later request's envelope, and relays the upstream's log messages", async () => {
    const client = new Client({ name: 'bridged-logs', version: '1.0.0' });
    const messages: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
    await client.connect(new StreamableHTTPClientTransport(serving.host.url));
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      // No level set: the envelope carries none, and a 2026-07-28 server logs nothing for the request.
      await client.callTool({ name: 'chatty', arguments: {} });
      expect(messages).toEqual([]);
      expect(await client.setLoggingLevel('info')).toEqual({});
      // On the call's own stream, before its answer.
      expect(await client.callTool({ name: 'chatty', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'said' }] });
      expect(messages).toEqual([
        { level: 'info', data: 'info from chatty' },
        { level: 'error', data: 'error from chatty' },
      ]);
      expect(callsFrom('bridged-logs').map(({ params }) => params?._meta?.[logLevelMetaKey])).toEqual([undefined, 'info']);
      // The bridge answers setLevel; a 2026-07-28 upstream has no such method.
      expect(received.map(({ method }) => method)).not.toContain('logging/setLevel');
      await expect(client.request({ method: 'logging/setLevel', params: { level: 'loud' } } as never, LoggingMessageNotificationSchema.partial())).rejects.toThrow(
        'MCP error -32602: Invalid log level: "loud"',
      );
    } finally {
      await client.close();
    }
  });

  it("keeps one session's level out of another's requests", async () => {
    const quiet = new Client({ name: 'bridged-quiet', version: '1.0.0' });
    await quiet.connect(new StreamableHTTPClientTransport(serving.host.url));
    try {
      await quiet.callTool({ name: 'chatty', arguments: {} });
      expect(callsFrom('bridged-quiet').map(({ params }) => params?._meta?.[logLevelMetaKey])).toEqual([undefined]);
    } finally {
      await quiet.close();
    }
  });
});

// The lists of a 2025-era session bridged to a 2026-07-28-only upstream (docs/proxy.md, "The era
// bridge"): the upstream announces changes only on subscriptions/listen, which the bridge does not
// hold open, so a request after the lists' TTL fetches them again and the session hears
// list_changed when its visible part changed; and its supervision (--upstream-ping, an outage). A real
// `@modelcontextprotocol/server` 2.4 upstream (`legacy: 'reject'`) and a real v1 SDK client over
// 127.0.0.1, the TTL shortened to 0.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWireGate, serveProxyHttp, type ProxyHttpServing } from '../../src/proxy/proxy-runtime.js';
import { createServer } from '../server/fixtures.js';
import { listen, type Endpoint } from '../server/http.js';
import { waitFor } from './harness.js';

/** Whether the upstream registers the tool `late` (its server is made per request, so this takes effect at once). */
let withLate = false;
/** While set, the upstream serves tools alone (no prompts or resources: it answers their lists HTTP 404, -32601). */
let toolsOnly = false;
/** While set, the upstream answers no JSON-RPC at all (as a load balancer in front of a crashed server). */
let upstreamDown = false;
let upstream: Endpoint;
let serving: ProxyHttpServing;
const stop = new AbortController();
const errors: unknown[] = [];

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      if (toolsOnly) {
        const tools = new McpServer({ name: 'tools-only', version: '1.0.0' });
        tools.registerTool('report', { description: 'reports' }, () => ({ content: [{ type: 'text' as const, text: 'tools only' }] }));
        return tools;
      }
      const server = createServer();
      if (withLate) server.registerTool('late', { description: 'registered later' }, () => ({ content: [] }));
      server.registerTool('pause', { description: 'answers after a while' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { content: [{ type: 'text' as const, text: 'paused' }] };
      });
      return server;
    },
    { legacy: 'reject' },
  );
  upstream = await listen(async (request) => (upstreamDown ? new Response('upstream unavailable', { status: 502 }) : handler.fetch(request)));
  const wire = createWireGate({ policy: { version: 1, default: 'allow', rules: [{ id: 'no-echo', effect: 'deny', appliesTo: { names: ['echo'] } }] } });
  const openUpstream = () => {
    throw new Error('a bridged session opens no 2025-era upstream session');
  };
  serving = await serveProxyHttp(
    wire,
    openUpstream,
    {
      port: 0,
      maxSessions: 10,
      sessionIdleTimeoutMs: 0,
      statelessUpstream: { url: new URL(`${upstream.url}/mcp`), headers: () => ({}) },
      statelessOnly: true,
      bridgedListTtlMs: 0,
      // --upstream-ping: the upstream is checked every 100 ms while a request waits on it.
      upstreamPingMs: 100,
      probeTimeoutMs: 2_000,
    },
    stop.signal,
    (error) => errors.push(error),
  );
}, 60_000);

afterAll(async () => {
  stop.abort();
  await serving?.close();
  await upstream?.close();
});

describe('serveProxyHttp bridging a 2025-era session to a 2026-07-28-only upstream', () => {
  it('fetches the lists again after their TTL, and tells the session of a visible change', async () => {
    const client = new Client({ name: 'bridged-lists', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await client.connect(new StreamableHTTPClientTransport(serving.host.url));
    try {
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
      expect(await names()).not.toContain('late');
      withLate = true;
      expect(await client.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
      await waitFor('tools/list_changed', () => (changes > 0 ? true : undefined));
      expect(await names()).toContain('late');
      expect(await names()).not.toContain('echo');
      expect(errors).toEqual([]);
    } finally {
      withLate = false;
      await client.close();
    }
  });
});

describe('serveProxyHttp supervising a bridged session', () => {
  it('takes an upstream that does not serve a list (HTTP 404, -32601) for an answer, not a fault', async () => {
    toolsOnly = true;
    const client = new Client({ name: 'bridged-tools-only', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(serving.host.url));
      expect(await client.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'tools only' }] });
      await expect(client.listPrompts()).rejects.toThrow('MCP error -32601: Method not found');
      expect(errors).toEqual([]);
    } finally {
      toolsOnly = false;
      await client.close();
    }
  });

  it('checks a 2026-07-28 upstream, which has no ping, with server/discover while a call waits', async () => {
    const client = new Client({ name: 'bridged-pinged', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serving.host.url));
    try {
      expect(await client.callTool({ name: 'pause', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'paused' }] });
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('answers while the upstream is down, and serves the session again once it is back', { timeout: 30_000 }, async () => {
    const client = new Client({ name: 'bridged-outage', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(serving.host.url));
    const report = () => client.callTool({ name: 'report', arguments: {} });
    try {
      expect(await report()).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
      upstreamDown = true;
      // The request that meets the outage, then one asking for a new upstream side while it lasts.
      await expect(report()).rejects.toThrow(/MCP error -32603: The upstream server (went away before answering this request|is not available)/);
      await expect(report()).rejects.toThrow('MCP error -32603: The upstream server is not available');
      upstreamDown = false;
      // The supervisor's back-off (250 ms, doubling) may refuse a try or two first.
      const served = await waitForAsync(async () => (await report().catch(() => undefined)) ?? undefined);
      expect(served).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('report');
    } finally {
      upstreamDown = false;
      await client.close();
    }
  });
});

/** Polls `check` (each call awaited) until it gives a value, for at most 10 s. */
async function waitForAsync<T>(check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out after 10000 ms waiting for the bridged session to be served again');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

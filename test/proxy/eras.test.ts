// Protocol eras through `mcp-gate proxy` (docs/proxy.md, "Protocol eras"): the proxy serves
// 2025-era sessions downstream and opens 2025-era sessions upstream; in front of an upstream that
// speaks 2026-07-28 too it serves 2026-07-28 stateless requests as well (test/proxy/stateless.test.ts
// gates them), and in front of one that speaks only 2026-07-28 it bridges 2025-era sessions to it
// (test/proxy/era-bridge.test.ts gates them). Against real upstreams (v2 SDK, `@modelcontextprotocol/server` 2.4, both eras on
// one endpoint or 2026-07-28 only; v1 SDK, 2025-era only) and real clients of both SDKs: what
// works, and the exact refusal of what does not.
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import { createFixtureServer } from '../sdk/fixtures.js';
import { createServer } from '../server/fixtures.js';
import { listen, postModern, type Endpoint } from '../server/http.js';
import { run } from '../../src/cli/run.js';
import { repositoryRoot, startProxy, type RunningProxy } from './harness.js';
import { envelope, RawLines, startStdioProxy } from './stdio-2026-harness.js';

// Hides one tool of the v2 fixture server, so that a working path is seen to be gated too.
const policyPath = join(tmpdir(), `mcp-gate-eras-${process.pid}.policy.json`);
const hiddenTool = 'echo';

let dualEra: Endpoint;
let proxy: RunningProxy;
let proxyEndpoint: Endpoint;
// A 2025-era-only upstream (the v1 SDK's Streamable HTTP sessions) and the proxy in front of it.
let sessionsOnly: HttpHost;
let legacyProxy: RunningProxy;
let legacyProxyEndpoint: Endpoint;

beforeAll(async () => {
  writeFileSync(policyPath, JSON.stringify({ version: 1, default: 'allow', rules: [{ id: 'no-echo', effect: 'deny', appliesTo: { names: [hiddenTool] } }] }));
  // createMcpHandler's default: 2026-07-28 requests, and 2025-era ones served without sessions.
  dualEra = await listen(createMcpHandler(() => createServer()));
  proxy = await startProxy(['--policy', policyPath, '--upstream-url', `${dualEra.url}/mcp`]);
  proxyEndpoint = { url: proxy.url.origin, close: async () => undefined };
  sessionsOnly = await startHttpHost({ createServer: createFixtureServer, gate: { install() {} } });
  legacyProxy = await startProxy(['--policy', policyPath, '--upstream-url', sessionsOnly.url.href]);
  legacyProxyEndpoint = { url: legacyProxy.url.origin, close: async () => undefined };
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await legacyProxy?.stop();
  await dualEra?.close();
  await sessionsOnly?.close();
});

type NegotiationMode = 'auto' | { pin: '2026-07-28' };

/** Connects a v2 client negotiating as `mode`; resolves with the revision it got and the tool names it lists (hidden must be absent). */
async function negotiated(url: URL, mode: NegotiationMode): Promise<{ version: string | undefined; tools: string[] }> {
  const client = new ClientV2({ name: 'negotiating-client', version: '2.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHttpV2(url));
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    return { version: client.getNegotiatedProtocolVersion(), tools };
  } finally {
    await client.close();
  }
}

/** A gated view: some tools, the hidden one not among them. */
function expectGated(tools: readonly string[]): void {
  expect(tools.length).toBeGreaterThan(0);
  expect(tools).not.toContain(hiddenTool);
}

describe('mcp-gate proxy in front of a 2025-era upstream (sessions only)', () => {
  it('refuses a 2026-07-28 stateless request as a 2025-era server does: HTTP 400, no session', async () => {
    for (const method of ['server/discover', 'tools/list', 'tools/call']) {
      const answer = await postModern(legacyProxyEndpoint, method, method === 'tools/call' ? { name: 'add', arguments: { a: 1, b: 2 } } : {});
      expect(answer.status).toBe(400);
      expect(answer.text).toBe('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}');
      expect(answer.headers.get('mcp-session-id')).toBeNull();
    }
    expect(legacyProxy.stderr()).not.toContain('stateless');
  });

  it("gives a v2 client that negotiates ('auto') a gated 2025-11-25 session", async () => {
    const { version, tools } = await negotiated(legacyProxy.url, 'auto');
    expect(version).toBe('2025-11-25');
    expectGated(tools);
  });

  it('fails the connect of a v2 client pinned to 2026-07-28', async () => {
    const client = new ClientV2({ name: 'pinned-client', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await expect(client.connect(new StreamableHttpV2(legacyProxy.url))).rejects.toThrow(
      'Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server/discover (no fallback in pin mode)',
    );
    await client.close().catch(() => undefined);
  });
});

/** A raw `initialize` POST asking for `protocolVersion` (10 s at most). */
function postInitialize(url: URL, protocolVersion: string, clientName: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } } }),
    signal: AbortSignal.timeout(10_000),
  });
}

describe('mcp-gate proxy in front of a 2026-07-28 upstream that serves 2025-era clients too', () => {
  it('serves a 2026-07-28 stateless request, gated, without a session', async () => {
    const discover = await postModern(proxyEndpoint, 'server/discover', {});
    expect(discover.status).toBe(200);
    expect(discover.body.result?.['supportedVersions']).toContain('2026-07-28');
    const list = await postModern(proxyEndpoint, 'tools/list', {});
    expectGated((list.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name));
    for (const answer of [discover, list]) expect(answer.headers.get('mcp-session-id')).toBeNull();
  });

  it('answers an initialize that asks for 2026-07-28 with 2025-11-25', async () => {
    const response = await postInitialize(proxy.url, '2026-07-28', 'asks-2026');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"protocolVersion":"2025-11-25"');
  });

  it("gives a v2 client that negotiates ('auto') or is pinned to 2026-07-28 gated 2026-07-28 requests", async () => {
    for (const mode of ['auto', { pin: '2026-07-28' }] as const) {
      const { version, tools } = await negotiated(proxy.url, mode);
      expect(version).toBe('2026-07-28');
      expectGated(tools);
    }
  });
});

describe('mcp-gate proxy in front of an upstream that speaks 2026-07-28 only', () => {
  let modernOnly: Endpoint;
  let modernProxy: RunningProxy;

  beforeAll(async () => {
    modernOnly = await listen(createMcpHandler(() => createServer(), { legacy: 'reject' }));
    modernProxy = await startProxy(['--policy', policyPath, '--upstream-url', `${modernOnly.url}/mcp`]);
  }, 60_000);

  afterAll(async () => {
    await modernProxy?.stop();
    await modernOnly?.close();
  });

  it('starts, and says it bridges 2025-era sessions to it', () => {
    expect(modernProxy.stderr()).toContain('in front of gated-v2: 5 tools');
    expect(modernProxy.stderr()).toContain(
      'serving 2026-07-28 stateless requests too, and bridging 2025-era sessions to the upstream with stateless requests (it speaks only 2026-07-28; docs/proxy.md#protocol-eras)',
    );
  });

  it('serves a v2 client pinned to 2026-07-28, or negotiating, gated', async () => {
    for (const mode of [{ pin: '2026-07-28' }, 'auto'] as const) {
      const { version, tools } = await negotiated(modernProxy.url, mode);
      expect(version).toBe('2026-07-28');
      expectGated(tools);
    }
  });

  it("answers a 2025-era initialize itself, from the upstream's server/discover, with a session", async () => {
    const response = await postInitialize(modernProxy.url, '2025-06-18', 'old');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"protocolVersion":"2025-06-18"');
    expect(text).toContain('"serverInfo":{"name":"gated-v2","version":"1.0.0"}');
    expect(response.headers.get('mcp-session-id')).not.toBeNull();
  });

  it('serves it with --stdio too: a 2026-07-28 connection gated per message, where a 2025-era initialize is the upstream’s to refuse', { timeout: 30_000 }, async () => {
    const stdioProxy = await startStdioProxy(['--policy', policyPath, '--upstream-url', `${modernOnly.url}/mcp`]);
    try {
      const lines = new RawLines(stdioProxy.input, stdioProxy.output);
      const listed = JSON.parse(await lines.request(1, 'tools/list', { _meta: envelope('stdio-client') })) as { result: { tools: { name: string }[] } };
      expectGated(listed.result.tools.map((tool) => tool.name));
      const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1.0.0' } };
      expect(JSON.parse(await lines.request(2, 'initialize', params))).toMatchObject({ error: { code: -32022, data: { supported: ['2026-07-28'] } } });
    } finally {
      await stdioProxy.stop();
    }
  });

  it('gives a v1 SDK client (2025-11-25) a gated session', async () => {
    const client = new Client({ name: 'old-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(modernProxy.url));
    try {
      expectGated((await client.listTools()).tools.map((tool) => tool.name));
      await expect(client.callTool({ name: hiddenTool, arguments: { text: 'x' } })).rejects.toThrow(`Tool ${hiddenTool} not found`);
    } finally {
      await client.close();
    }
  });

  it('starts with --stdio, saying the session is bridged', { timeout: 60_000 }, async () => {
    const err: string[] = [];
    const code = await run(['proxy', '--stdio', '--policy', policyPath, '--upstream-url', `${modernOnly.url}/mcp`], {
      cwd: repositoryRoot,
      stdout: () => undefined,
      stderr: (text) => err.push(text),
      readFile: (path) => readFile(path, 'utf8'),
      signal: AbortSignal.timeout(30_000),
      stdio: { input: Readable.from([]), output: new PassThrough() },
    });
    // Its stdin is empty: it serves until the client goes away, at once.
    expect(code).toBe(0);
    expect(err.join('')).toContain(
      'mcp-gate proxy: speaking MCP on stdin/stdout (the upstream speaks only 2026-07-28: the session is bridged to it with stateless requests; docs/proxy.md#protocol-eras)',
    );
  });
});

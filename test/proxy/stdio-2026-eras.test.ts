// `mcp-gate proxy --stdio` in front of a spawned upstream of both eras (docs/proxy.md, "Protocol
// eras"): the opening exchange picks the era of the connection. A real v2 client that negotiates
// gets 2026-07-28, each of its messages gated on its own envelope; a v1 client gets a 2025-era
// session as before. The upstream is fixtures/stdio-2026-upstream.mjs (`serveStdio`, both eras).
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioServerTransport as StreamTransportV2 } from '@modelcontextprotocol/server/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport as StreamTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startStdioProxy, upstreamCommand, type StdioProxy } from './stdio-2026-harness.js';

const gateArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/stdio-2026.overlay.json'];

describe('mcp-gate proxy --stdio in front of a spawned upstream of both eras', () => {
  const proxies: StdioProxy[] = [];
  const start = async () => {
    const proxy = await startStdioProxy([...gateArgs, '--upstream-cmd', upstreamCommand()]);
    proxies.push(proxy);
    return proxy;
  };

  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  it('serves a negotiating v2 client in 2026-07-28, gated', { timeout: 20_000 }, async () => {
    const proxy = await start();
    const client = new ClientV2({ name: 'plain-client', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamTransportV2(proxy.output, proxy.input));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(proxy.stderr()).toContain('serving 2026-07-28 clients too, each message gated on its own envelope');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['public-crash', 'public-echo', 'public-progress', 'public-wait']);
    expect(await client.callTool({ name: 'public-echo', arguments: { message: 'v2' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: v2' }] });
    // No 2025-era session was opened upstream for it: every message it sent carried its envelope.
    expect(proxy.upstreamReceived().filter((line) => line.includes('"plain-client"') && line.includes('"initialize"'))).toEqual([]);
  });

  it('serves a 2025-era client as before: a session, initialized with its name', { timeout: 20_000 }, async () => {
    const proxy = await start();
    const client = new Client({ name: 'session-client', version: '1.0.0' });
    await client.connect(new StreamTransport(proxy.output, proxy.input));
    expect(client.getServerVersion()?.name).toBe('stdio-2026-upstream');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['public-crash', 'public-echo', 'public-progress', 'public-wait']);
    expect(await client.callTool({ name: 'public-echo', arguments: { message: 'v1' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: v1' }] });
    const initialize = proxy.upstreamReceived().find((line) => line.includes('"initialize"') && line.includes('"session-client"'));
    expect(initialize).toBeDefined();
  });
});

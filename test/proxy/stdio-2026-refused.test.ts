// What `mcp-gate proxy --stdio` cannot do in 2026-07-28 (docs/proxy.md, "Protocol eras"): in front
// of a spawned upstream that speaks only 2025-era sessions (the v1 SDK's recording upstream), a v2
// client pinned to 2026-07-28 is refused as such a server itself refuses it, and one that
// negotiates falls back to a 2025-11-25 session, gated.
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioServerTransport as StreamTransportV2 } from '@modelcontextprotocol/server/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { startStdioProxy, type StdioProxy } from './stdio-2026-harness.js';

const proxyArgs = [
  '--policy',
  'test/proxy/fixtures/admin-only.policy.json',
  '--overlay',
  'test/proxy/fixtures/recording.overlay.json',
  '--upstream-cmd',
  `${process.execPath} test/wire/recording-upstream.mjs`,
];

describe('mcp-gate proxy --stdio in front of a spawned 2025-era-only upstream', () => {
  const proxies: StdioProxy[] = [];
  const connect = async (mode: 'auto' | { pin: '2026-07-28' }) => {
    const proxy = await startStdioProxy(proxyArgs);
    proxies.push(proxy);
    const client = new ClientV2({ name: 'v2-client', version: '2.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new StreamTransportV2(proxy.output, proxy.input));
    return client;
  };

  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  });

  it('refuses a client pinned to 2026-07-28: its connect fails', { timeout: 20_000 }, async () => {
    await expect(connect({ pin: '2026-07-28' })).rejects.toThrow(
      'Version negotiation failed: the server did not offer pinned protocol version 2026-07-28 via server/discover (no fallback in pin mode)',
    );
  });

  it('gives a negotiating client a 2025-11-25 session, gated', { timeout: 20_000 }, async () => {
    const client = await connect('auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(proxies.at(-1)!.stderr()).not.toContain('serving 2026-07-28 clients');
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('public-echo');
    expect(tools.filter((name) => name.startsWith('secret-'))).toEqual([]);
  });
});

// `mcp-gate proxy` over HTTP in front of a spawned upstream of both eras (docs/proxy.md, "Protocol
// eras"): 2025-era sessions get a process each, as before; 2026-07-28 stateless requests go over
// the stdio of one more process (fixtures/stdio-2026-upstream.mjs, `serveStdio`, both eras).
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { startProxy } from './harness.js';
import { upstreamCommand } from './stdio-2026-harness.js';

describe('mcp-gate proxy in front of a spawned upstream of both eras', () => {
  it('serves 2026-07-28 stateless requests and 2025-era sessions on one listener', { timeout: 20_000 }, async () => {
    const dual = await startProxy([
      '--policy',
      'test/proxy/fixtures/admin-only.policy.json',
      '--overlay',
      'test/proxy/fixtures/stdio-2026.overlay.json',
      '--upstream-cmd',
      upstreamCommand(),
    ]);
    const modern = new ClientV2({ name: 'plain-client', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const session = new Client({ name: 'session-client', version: '1.0.0' });
    try {
      expect(dual.stderr()).toContain('serving 2026-07-28 stateless requests too');
      await modern.connect(new StreamableHttpV2(dual.url));
      await session.connect(new StreamableHTTPClientTransport(dual.url));
      expect(session.getServerVersion()?.name).toBe('stdio-2026-upstream');
      for (const client of [modern, session] as const) {
        expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['public-crash', 'public-echo', 'public-progress', 'public-wait']);
        expect(await client.callTool({ name: 'public-echo', arguments: { message: 'both' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: both' }] });
      }
    } finally {
      await Promise.all([modern.close(), session.close()]);
      await dual.stop();
    }
  });
});

// `mcp-gate proxy` over HTTP in front of a spawned upstream that speaks only 2026-07-28 (docs/proxy.md,
// "Protocol eras"): the stateless requests of v2 clients go upstream as 2026-07-28 requests over the
// stdio of one spawned process (fixtures/stdio-2026-upstream.mjs, `serveStdio` with
// `legacy: 'reject'`), which is restarted when it dies, without taking the proxy down.
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postModern, type Endpoint } from '../server/http.js';
import { startProxy, type RunningProxy } from './harness.js';
import { envelope, spawnFixture, upstreamCommand } from './stdio-2026-harness.js';

let proxy: RunningProxy;
let endpoint: Endpoint;
let client: ClientV2;

/** What the spawned upstream processes received, from the proxy's stderr. */
const upstreamReceived = () => [...proxy.stderr().matchAll(/upstream: received (.*)\n/g)].map((match) => match[1]!);

beforeAll(async () => {
  proxy = await startProxy([
    '--policy',
    'test/proxy/fixtures/admin-only.policy.json',
    '--overlay',
    'test/proxy/fixtures/stdio-2026.overlay.json',
    '--upstream-cmd',
    upstreamCommand('--modern-only'),
  ]);
  endpoint = { url: proxy.url.origin, close: async () => undefined };
  client = new ClientV2({ name: 'plain-client', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHttpV2(proxy.url));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await proxy?.stop();
});

describe('mcp-gate proxy in front of a spawned 2026-07-28-only upstream', () => {
  it('serves a pinned v2 client: lists filtered by its envelope, a visible call relayed', async () => {
    expect(proxy.stderr()).toContain('serving 2026-07-28 stateless requests too, and bridging 2025-era sessions to the upstream');
    expect(client.getServerVersion()?.name).toBe('stdio-2026-upstream');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['public-crash', 'public-echo', 'public-progress', 'public-wait']);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['test://docs/public']);
    expect(await client.callTool({ name: 'public-echo', arguments: { message: 'over http' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: over http' }] });
    const admin = await postModern(endpoint, 'tools/list', {}, { clientInfo: { name: 'admin-client', version: '1.0.0' } });
    expect((admin.body.result as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('secret-drop');
  });

  it('answers a hidden call with the error of an upstream without the tool, and never sends its name upstream', async () => {
    const direct = spawnFixture('--modern-only', '--without-hidden');
    try {
      const params = { name: 'secret-drop', arguments: { table: 'users' } };
      const unknown = JSON.parse(await direct.lines.request(7, 'tools/call', { ...params, _meta: envelope('test-client') })) as { error: unknown };
      const proxied = await postModern(endpoint, 'tools/call', params, { id: 7 });
      expect(proxied.body.error).toEqual(unknown.error);
      expect(upstreamReceived().filter((line) => line.includes('secret'))).toEqual([]);
    } finally {
      direct.process.kill();
    }
  });

  it('answers the calls in flight when the upstream process dies, and restarts it for the next', { timeout: 20_000 }, async () => {
    await expect(client.callTool({ name: 'public-crash', arguments: {} })).rejects.toThrow('The upstream server is not available');
    expect(proxy.stderr()).toContain('the upstream process exited');
    // The next request spawns a new process (after the supervisor's back-off); the proxy never stopped.
    expect(await client.callTool({ name: 'public-echo', arguments: { message: 'again' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: again' }] });
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('secret-drop');
  });
});

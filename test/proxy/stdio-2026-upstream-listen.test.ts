// `subscriptions/listen` opened on a spawned 2026-07-28 upstream's stdio (docs/proxy.md, "2026-07-28
// over stdio"): fixtures/stdio-2026-upstream.mjs with `--changes` (`serveStdio`, which serves
// listen itself, and a `public-change` tool that makes changes), behind `--stdio` and behind the
// HTTP listener, with real v2 clients pinned to 2026-07-28 listening. The stream is filtered as
// for an upstream URL: hidden ≡ unknown for subscription URIs, list_changed only when the
// listener's own view changed, and no listen request naming a hidden resource reaches the process.
import { StdioServerTransport as StreamTransportV2 } from '@modelcontextprotocol/server/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './harness.js';
import { openListener, openListenerOver, seenBy, type Listener } from './stateless-listen-fixtures.js';
import { startStdioProxy, upstreamCommand, type StdioProxy } from './stdio-2026-harness.js';

// Admin primitives (`secret-*`, by the overlay) only for the client named admin-client.
const gateArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/stdio-2026.overlay.json'];
const upstreamArgs = ['--upstream-cmd', upstreamCommand('--modern-only', '--changes')];
const uris = ['test://docs/secret', 'test://secret/1', 'test://docs/public'];
const filter = { toolsListChanged: true, resourceSubscriptions: uris };
const toolsChanged = 'notifications/tools/list_changed';
const stdioProxies: StdioProxy[] = [];
const httpProxies: RunningProxy[] = [];

afterAll(async () => {
  await Promise.all([...stdioProxies.map((proxy) => proxy.stop()), ...httpProxies.map((proxy) => proxy.stop())]);
});

/** A listener named `name` on the stdio of a proxy of its own (with an upstream process of its own). */
async function openStdioListener(name: string): Promise<{ listener: Listener; proxy: StdioProxy }> {
  const proxy = await startStdioProxy([...gateArgs, ...upstreamArgs]);
  stdioProxies.push(proxy);
  return { listener: await openListenerOver(new StreamTransportV2(proxy.output, proxy.input), name, filter), proxy };
}

const change = (listener: Listener, args: { tool?: string; updated?: string[] }) => listener.client.callTool({ name: 'public-change', arguments: args });
/** The listen requests among the lines a process received. */
const listens = (received: string[]) => received.filter((line) => line.includes('"subscriptions/listen"'));

describe('mcp-gate proxy --stdio relaying subscriptions/listen from a spawned 2026-07-28 upstream', () => {
  it('relays only what the listener may see, and names nothing hidden in the listen upstream', { timeout: 20_000 }, async () => {
    const [plain, admin] = await Promise.all([openStdioListener('listen-plain'), openStdioListener('admin-client')]);
    try {
      // The process acknowledges a URI it does not have as one it has: so does the proxy for a hidden one.
      expect(plain.listener.subscription.honoredFilter).toEqual(filter);
      await change(admin.listener, { updated: uris });
      expect(await seenBy(admin.listener, 3)).toEqual(uris);
      await change(plain.listener, { updated: uris });
      // In order: had a hidden update been relayed, it would have come before.
      expect(await seenBy(plain.listener, 1)).toEqual(['test://docs/public']);
      expect(listens(plain.proxy.upstreamReceived()).filter((line) => line.includes('secret'))).toEqual([]);
      expect(listens(admin.proxy.upstreamReceived())[0]).toContain('test://docs/secret');

      // A tool only admins see: list_changed for the admin's listener, nothing for the other (a marker follows).
      await change(admin.listener, { tool: 'secret-late' });
      expect(await seenBy(admin.listener, 4)).toEqual([...uris, toolsChanged]);
      await change(plain.listener, { tool: 'secret-late' });
      await change(plain.listener, { updated: ['test://docs/public'] });
      expect(await seenBy(plain.listener, 2)).toEqual(['test://docs/public', 'test://docs/public']);
      await change(plain.listener, { tool: 'public-late' });
      expect(await seenBy(plain.listener, 3)).toEqual(['test://docs/public', 'test://docs/public', toolsChanged]);
    } finally {
      await Promise.all([plain.listener.close(), admin.listener.close()]);
    }
  });
});

describe('mcp-gate proxy over HTTP relaying subscriptions/listen from a spawned 2026-07-28 upstream', () => {
  it('relays only what the listener may see, and names nothing hidden in the listen upstream', { timeout: 20_000 }, async () => {
    const proxy = await startProxy([...gateArgs, ...upstreamArgs]);
    httpProxies.push(proxy);
    const listener = await openListener(proxy.url, 'http-plain', filter);
    try {
      expect(listener.subscription.honoredFilter).toEqual(filter);
      await change(listener, { updated: uris });
      expect(await seenBy(listener, 1)).toEqual(['test://docs/public']);
      const received = [...proxy.stderr().matchAll(/upstream: received (.*)\n/g)].map((match) => match[1]!);
      expect(listens(received)).toHaveLength(1);
      expect(listens(received).filter((line) => line.includes('secret'))).toEqual([]);
    } finally {
      await listener.close();
    }
  });
});

// `subscriptions/listen` through `mcp-gate proxy --stdio` in front of a 2026-07-28 upstream URL
// (docs/proxy.md, "2026-07-28 over stdio"): real v2 clients pinned to 2026-07-28, each on the
// proxy's stdio (one proxy per client, as an MCP host runs one per server), and a real
// `@modelcontextprotocol/server` 2.4 upstream that records what it receives. The stream comes as
// JSON-RPC lines, filtered as over HTTP: hidden ≡ unknown for subscription URIs, list_changed only
// when the listener's own view changed, nothing hidden sent upstream.
import { StdioServerTransport as StreamTransportV2 } from '@modelcontextprotocol/server/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness.js';
import { closedCause, openListenerOver, seenBy, startRecordingUpstream, type Listener, type RecordingUpstream } from './stateless-listen-fixtures.js';
import { startStdioProxy, type StdioProxy } from './stdio-2026-harness.js';

// Admin primitives (the `admin` group) only for the client named admin-client.
const policy = 'test/proxy/fixtures/admin-only.policy.json';
const toolsChanged = 'notifications/tools/list_changed';
const lateTools: { name: string; admin: boolean }[] = [];
let upstream: RecordingUpstream;
const proxies: StdioProxy[] = [];

beforeAll(async () => {
  upstream = await startRecordingUpstream((server) => {
    for (const { name, admin } of lateTools) {
      server.registerTool(name, { description: 'added later', ...(admin ? { _meta: { 'mcp-gate': { groups: ['admin'] } } } : {}) }, () => ({ content: [] }));
    }
  });
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await upstream?.close();
});

/** A listener named `name` on the stdio of a proxy of its own. */
async function openStdioListener(name: string, filter: Parameters<typeof openListenerOver>[2]): Promise<Listener> {
  const proxy = await startStdioProxy(['--policy', policy, '--upstream-url', `${upstream.endpoint.url}/mcp`]);
  proxies.push(proxy);
  return openListenerOver(new StreamTransportV2(proxy.output, proxy.input), name, filter);
}

/** The listen requests the upstream received from the client `name`, as sent. */
function listensFrom(name: string): string[] {
  return upstream.received.filter(({ body }) => body.method === 'subscriptions/listen' && JSON.stringify(body).includes(`"${name}"`)).map(({ body }) => JSON.stringify(body));
}

describe('mcp-gate proxy --stdio relaying subscriptions/listen from a 2026-07-28 upstream URL', () => {
  it('relays resources/updated only for URIs the listener may read, and acknowledges a hidden one as an unknown one', { timeout: 20_000 }, async () => {
    // Resources and URIs of templates (items:// for everyone, vault:// for admins).
    const uris = ['docs://audit', 'vault://7', 'items://5', 'docs://readme'];
    const filter = { resourceSubscriptions: uris };
    const [plain, admin] = await Promise.all([openStdioListener('listen-plain', filter), openStdioListener('admin-client', filter)]);
    try {
      // The upstream acknowledges a URI it does not have as it acknowledges one it has: so does the proxy for a hidden one.
      expect(plain.subscription.honoredFilter).toEqual(filter);
      for (const uri of uris) upstream.handler.notify.resourceUpdated(uri);
      expect(await seenBy(admin, 4)).toEqual(uris);
      // One stream, in order: had a hidden update been relayed, it would have come before the last.
      expect(await seenBy(plain, 2)).toEqual(['items://5', 'docs://readme']);
      // Nothing naming a hidden resource went upstream for the plain listener; the admin's went as asked.
      expect(listensFrom('listen-plain')).toHaveLength(1);
      expect(listensFrom('listen-plain').filter((body) => body.includes('docs://audit') || body.includes('vault://7'))).toEqual([]);
      expect(listensFrom('admin-client')[0]).toContain('vault://7');
    } finally {
      await Promise.all([plain.close(), admin.close()]);
    }
  });

  it('sends list_changed only to the listener whose own view of the list changed', { timeout: 20_000 }, async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] };
    const [plain, admin] = await Promise.all([openStdioListener('list-plain', filter), openStdioListener('admin-client', filter)]);
    try {
      lateTools.push({ name: 'late-admin', admin: true });
      upstream.handler.notify.toolsChanged();
      expect(await seenBy(admin, 1)).toEqual([toolsChanged]);
      expect((await admin.client.listTools()).tools.map((tool) => tool.name)).toContain('late-admin');
      // A marker after the change: the plain listener's view did not change, so it was told nothing before it.
      upstream.handler.notify.resourceUpdated('docs://readme');
      expect(await seenBy(plain, 1)).toEqual(['docs://readme']);
      lateTools.push({ name: 'late-public', admin: false });
      upstream.handler.notify.toolsChanged();
      expect(await seenBy(plain, 2)).toEqual(['docs://readme', toolsChanged]);
    } finally {
      await Promise.all([plain.close(), admin.close()]);
    }
  });

  it("closes the upstream's listen stream when the listener cancels its subscription", { timeout: 20_000 }, async () => {
    // The earlier tests' listeners closed: their upstream streams are gone (or going).
    await waitFor('no upstream stream', () => (upstream.bus.listenerCount === 0 ? true : undefined), 10_000);
    const listener = await openStdioListener('closing', { toolsListChanged: true });
    await waitFor('the upstream stream', () => (upstream.bus.listenerCount === 1 ? true : undefined), 10_000);
    await listener.close();
    await waitFor('the upstream stream to close', () => (upstream.bus.listenerCount === 0 ? true : undefined), 10_000);
  });

  it('ends the subscription for the listener when the upstream drops its stream without an answer', { timeout: 20_000 }, async () => {
    const listener = await openStdioListener('dropped', { toolsListChanged: true });
    try {
      upstream.dropListenStreams();
      expect(await closedCause(listener)).toBe('remote');
    } finally {
      await listener.close();
    }
  });
});

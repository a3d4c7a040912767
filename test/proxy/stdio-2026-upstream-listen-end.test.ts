// How a `subscriptions/listen` opened on a spawned 2026-07-28 upstream's stdio ends (docs/proxy.md,
// "2026-07-28 over stdio"): the listener's close cancels it on the process; the process exiting
// ends it for the listener. fixtures/stdio-2026-upstream.mjs with `--changes`, behind `--stdio`,
// a real v2 client pinned to 2026-07-28 listening.
import { StdioServerTransport as StreamTransportV2 } from '@modelcontextprotocol/server/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness.js';
import { closedCause, openListenerOver, type Listener } from './stateless-listen-fixtures.js';
import { startStdioProxy, upstreamCommand, type StdioProxy } from './stdio-2026-harness.js';

const proxies: StdioProxy[] = [];

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.stop()));
});

/** A listener named `name` on the stdio of a proxy of its own (with an upstream process of its own). */
async function openStdioListener(name: string): Promise<{ listener: Listener; proxy: StdioProxy }> {
  const proxy = await startStdioProxy(['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--upstream-cmd', upstreamCommand('--modern-only', '--changes')]);
  proxies.push(proxy);
  return { listener: await openListenerOver(new StreamTransportV2(proxy.output, proxy.input), name, { toolsListChanged: true }), proxy };
}

describe('mcp-gate proxy --stdio ending a listen opened on a spawned upstream', () => {
  it('cancels the listen on the process when the listener closes it', { timeout: 20_000 }, async () => {
    const { listener, proxy } = await openStdioListener('closing');
    await listener.close();
    const cancelled = await waitFor('the cancellation upstream', () => proxy.upstreamReceived().find((line) => line.includes('"notifications/cancelled"')), 10_000);
    // It names the listen request as the process knows it.
    const listenId = (JSON.parse(proxy.upstreamReceived().find((line) => line.includes('"subscriptions/listen"'))!) as { id: unknown }).id;
    expect((JSON.parse(cancelled) as { params: { requestId: unknown } }).params.requestId).toBe(listenId);
  });

  it('ends the subscription for the listener when the process exits', { timeout: 20_000 }, async () => {
    const { listener } = await openStdioListener('crashing');
    try {
      await expect(listener.client.callTool({ name: 'public-crash', arguments: {} })).rejects.toThrow('The upstream server is not available');
      expect(await closedCause(listener)).toBe('remote');
    } finally {
      await listener.close();
    }
  });
});

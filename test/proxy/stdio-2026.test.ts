// `mcp-gate proxy --stdio` and protocol 2026-07-28 (docs/proxy.md, "Protocol eras"): a real
// `@modelcontextprotocol/server` 2.4 server on its stdio era entry as --upstream-cmd
// (fixtures/stdio-2026-upstream.mjs, which writes every line it receives to stderr), spoken to in
// raw lines: each message sends its own envelope, and answers are compared byte for byte with
// those of the same server without the hidden primitives. Each message is decided on its own envelope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness.js';
import { envelope, RawLines, spawnFixture, startStdioProxy, upstreamCommand, type StdioProxy } from './stdio-2026-harness.js';

const gateArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/stdio-2026.overlay.json'];
const names = (line: string, list: string) => ((JSON.parse(line) as { result: Record<string, { name: string }[]> }).result[list] ?? []).map((item) => item.name).sort();

describe('mcp-gate proxy --stdio in front of a spawned upstream that speaks only 2026-07-28', () => {
  let proxy: StdioProxy;
  let lines: RawLines;
  // The same server without the secret-* primitives, spoken to directly: what an unknown name gets.
  let direct: ReturnType<typeof spawnFixture>;

  beforeAll(async () => {
    direct = spawnFixture('--modern-only', '--without-hidden');
    proxy = await startStdioProxy([...gateArgs, '--upstream-cmd', upstreamCommand('--modern-only')]);
    lines = new RawLines(proxy.input, proxy.output);
  }, 30_000);

  afterAll(async () => {
    await proxy?.stop();
    direct?.process.kill();
  });

  it('relays server/discover, and filters each list by the envelope of its own message', async () => {
    const discover = JSON.parse(await lines.request(1, 'server/discover', { _meta: envelope('plain-client') })) as { result: { supportedVersions: string[] } };
    expect(discover.result.supportedVersions).toContain('2026-07-28');
    expect(names(await lines.request(2, 'tools/list', { _meta: envelope('plain-client') }), 'tools')).toEqual([
      'public-crash',
      'public-echo',
      'public-progress',
      'public-wait',
    ]);
    // The next message, on the same connection, from the client the policy lets see admin primitives.
    expect(names(await lines.request(3, 'tools/list', { _meta: envelope('admin-client') }), 'tools')).toEqual([
      'public-crash',
      'public-echo',
      'public-progress',
      'public-wait',
      'secret-drop',
    ]);
    expect(names(await lines.request(4, 'prompts/list', { _meta: envelope('plain-client') }), 'prompts')).toEqual(['public-prompt']);
    expect(names(await lines.request(5, 'resources/list', { _meta: envelope('plain-client') }), 'resources')).toEqual(['public-doc']);
    expect(names(await lines.request(6, 'resources/templates/list', { _meta: envelope('plain-client') }), 'resourceTemplates')).toEqual(['public-items']);
    expect(proxy.stderr()).toContain('in front of stdio-2026-upstream');
    expect(proxy.stderr()).toContain('serving 2026-07-28 clients too, each message gated on its own envelope');
    expect(proxy.stderr()).toContain('the session is bridged to it with stateless requests');
  });

  it('relays a visible call, and its progress with the client’s own token', async () => {
    const echo = JSON.parse(await lines.request(10, 'tools/call', { name: 'public-echo', arguments: { message: 'hi' }, _meta: envelope('plain-client') }));
    expect(echo).toMatchObject({ id: 10, result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    const done = await lines.request(11, 'tools/call', { name: 'public-progress', arguments: {}, _meta: envelope('plain-client', { progressToken: 'mine' }) });
    expect(JSON.parse(done)).toMatchObject({ result: { content: [{ type: 'text', text: 'done' }] } });
    const progress = lines.lines.filter((line) => line.includes('notifications/progress')).map((line) => JSON.parse(line) as { params: unknown });
    expect(progress.map((message) => message.params)).toEqual([
      { progress: 1, total: 2, progressToken: 'mine' },
      { progress: 2, total: 2, progressToken: 'mine' },
    ]);
  });

  it('answers a read the upstream lets shared caches keep as private', async () => {
    const read = JSON.parse(await lines.request(12, 'resources/read', { uri: 'test://docs/public', _meta: envelope('plain-client') })) as { result: Record<string, unknown> };
    const upstreamRead = JSON.parse(await direct.lines.request(12, 'resources/read', { uri: 'test://docs/public', _meta: envelope('plain-client') })) as {
      result: Record<string, unknown>;
    };
    expect(upstreamRead.result['cacheScope']).toBe('public');
    expect(read.result).toEqual({ ...upstreamRead.result, cacheScope: 'private' });
  });

  it('answers a call, get or read of a hidden primitive byte for byte as an upstream without it', async () => {
    const hidden: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'secret-drop', arguments: { table: 'users' } }],
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'test://docs/secret' }],
      ['resources/read', { uri: 'test://secret/1' }],
    ];
    for (const [index, [method, params]] of hidden.entries()) {
      const id = 20 + index;
      const request = { ...params, _meta: envelope('plain-client') };
      const [proxied, unknown] = [await lines.request(id, method, request), await direct.lines.request(id, method, request)];
      expect(proxied, `${method} ${JSON.stringify(params)}`).toBe(unknown);
      expect(proxied).toContain('"error"');
    }
  });

  it('sends nothing naming a hidden primitive upstream', () => {
    const received = proxy.upstreamReceived();
    expect(received.some((line) => line.includes('"public-echo"'))).toBe(true);
    expect(received.filter((line) => line.includes('secret'))).toEqual([]);
  });

  it('passes a cancellation on to the upstream, and does not answer the cancelled call', async () => {
    lines.send(40, 'tools/call', { name: 'public-wait', arguments: {}, _meta: envelope('plain-client') });
    await waitFor('the call upstream', () => proxy.upstreamReceived().find((line) => line.includes('"public-wait"')));
    lines.notify('notifications/cancelled', { requestId: 40, _meta: envelope('plain-client') });
    await waitFor('the upstream to see it cancelled', () => proxy.stderr().includes('upstream: cancelled public-wait') || undefined);
    // An answer that comes after the cancellation was sent (a request after it): the cancelled call's would have come by now.
    await lines.request(41, 'tools/list', { _meta: envelope('plain-client') });
    expect(lines.lines.filter((line) => (JSON.parse(line) as { id?: unknown }).id === 40)).toEqual([]);
  });

  it('answers a 2025-era initialize with the upstream’s own refusal, byte for byte', async () => {
    const params = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1.0.0' } };
    const [proxied, refused] = [await lines.request(30, 'initialize', params), await direct.lines.request(30, 'initialize', params)];

    expect(proxied).toBe(refused);
    expect(refused).toContain('"supported":["2026-07-28"]');
  });
});

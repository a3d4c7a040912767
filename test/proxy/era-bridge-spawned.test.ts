// The era bridge in front of a spawned upstream that speaks only 2026-07-28 (docs/proxy.md, "The
// era bridge"): a 2025-era session, over --stdio and over HTTP, whose upstream side is 2026-07-28
// requests over the stdio of the spawned process (fixtures/stdio-2026-upstream.mjs: `serveStdio`
// of `@modelcontextprotocol/server` 2.4 with `legacy: 'reject'`, which writes each line it
// receives to stderr). Real v1 SDK clients (2025-11-25).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawAnswer, recordReceived, startProxy, type RunningProxy, type WireRecorder } from './harness.js';
import { spawnFixture, startStdioProxy, upstreamCommand, type StdioProxy } from './stdio-2026-harness.js';

const gateArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/stdio-2026.overlay.json'];
const upstreamArgs = ['--upstream-cmd', upstreamCommand('--modern-only')];
/** What the spawned upstream processes received, from a proxy's stderr. */
const upstreamReceived = (stderr: string) => [...stderr.matchAll(/upstream: received (.*)\n/g)].map((match) => match[1]!);

let stdioProxy: StdioProxy;
let httpProxy: RunningProxy;

beforeAll(async () => {
  [stdioProxy, httpProxy] = await Promise.all([startStdioProxy([...gateArgs, ...upstreamArgs]), startProxy([...gateArgs, ...upstreamArgs])]);
}, 30_000);

afterAll(async () => {
  await stdioProxy?.stop();
  await httpProxy?.stop();
});

/** What every bridged session must show: lists filtered, a visible call relayed, a hidden one answered as the upstream answers an unknown one. */
async function expectBridged(client: Client, recorder: WireRecorder, stderr: () => string, name: string): Promise<void> {
  expect(client.getServerVersion()).toEqual({ name: 'stdio-2026-upstream', version: '1.0.0' });
  // Nothing the bridge cannot relay from a spawned process is offered.
  expect(client.getServerCapabilities()?.logging).toBeUndefined();
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['public-crash', 'public-echo', 'public-progress', 'public-wait']);
  expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['test://docs/public']);
  expect(await client.callTool({ name: 'public-echo', arguments: { message: 'bridged' } })).toMatchObject({ content: [{ type: 'text', text: 'echo: bridged' }] });
  const progress: unknown[] = [];
  await client.callTool({ name: 'public-progress', arguments: {} }, undefined, { onprogress: (update) => progress.push(update) });
  expect(progress).toEqual([
    { progress: 1, total: 2 },
    { progress: 2, total: 2 },
  ]);
  // The same server without the secret-* primitives, asked directly with the session's envelope: what an unknown name gets.
  const direct = spawnFixture('--modern-only', '--without-hidden');
  try {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const hidden = [
      ['tools/call', { name: 'secret-drop', arguments: { table: 'users' } }],
      ['resources/read', { uri: 'test://docs/secret' }],
    ] as const;
    for (const [index, [method, params]] of hidden.entries()) {
      const unknown = JSON.parse(await direct.lines.request(index + 1, method, { ...params, _meta: envelope })) as { error: unknown };
      expect(JSON.parse(await rawAnswer(client, recorder, method, params))).toEqual({ jsonrpc: '2.0', error: unknown.error });
    }
  } finally {
    direct.process.kill();
  }
  expect(JSON.parse(await rawAnswer(client, recorder, 'logging/setLevel', { level: 'info' }))).toEqual({
    jsonrpc: '2.0',
    error: {
      code: -32601,
      message:
        'logging/setLevel is not available through mcp-gate proxy: the spawned upstream speaks only protocol 2026-07-28, whose log messages and resource updates the proxy does not relay to 2025-era sessions (docs/proxy.md#protocol-eras)',
    },
  });
  const sent = upstreamReceived(stderr());
  expect(sent.some((line) => line.includes('"method":"tools/call"') && line.includes(`"name":"${name}"`))).toBe(true);
  expect(sent.filter((line) => line.includes('secret'))).toEqual([]);
  expect(sent.filter((line) => line.includes('logging/setLevel'))).toEqual([]);
  // The only initialize the process got is the startup check's (refused: it speaks only 2026-07-28).
  expect(
    sent.filter((line) => line.includes('"method":"initialize"')).map((line) => (JSON.parse(line) as { params: { clientInfo: { name: string } } }).params.clientInfo.name),
  ).toEqual(['mcp-gate-proxy-startup-check']);
}

describe('the era bridge in front of a spawned 2026-07-28-only upstream', () => {
  it('bridges a 2025-era --stdio session', async () => {
    expect(stdioProxy.stderr()).toContain('the session is bridged to it with stateless requests');
    const client = new Client({ name: 'bridged-stdio-cmd', version: '1.0.0' });
    const recorded = recordReceived(new StdioServerTransport(stdioProxy.output, stdioProxy.input));
    await client.connect(recorded.transport, { timeout: 10_000 });
    try {
      await expectBridged(client, recorded, () => stdioProxy.stderr(), 'bridged-stdio-cmd');
    } finally {
      await client.close();
    }
  });

  it('bridges a 2025-era HTTP session', async () => {
    expect(httpProxy.stderr()).toContain('bridging 2025-era sessions to the upstream with stateless requests');
    const client = new Client({ name: 'bridged-http-cmd', version: '1.0.0' });
    const recorded = recordReceived(new StreamableHTTPClientTransport(httpProxy.url));
    await client.connect(recorded.transport);
    try {
      await expectBridged(client, recorded, () => httpProxy.stderr(), 'bridged-http-cmd');
    } finally {
      await client.close();
    }
  });
});

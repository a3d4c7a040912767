// `mcp-gate proxy --stdio` in front of a Streamable HTTP upstream that speaks only 2026-07-28
// (docs/proxy.md, "2026-07-28 over stdio"): each message from stdio goes upstream as a stateless
// request with its own envelope and the --upstream-header headers (there are none to forward).
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../server/fixtures.js';
import { listen, type Endpoint } from '../server/http.js';
import { envelope, RawLines, startStdioProxy, type StdioProxy } from './stdio-2026-harness.js';

/** Each JSON-RPC request the upstream received: its method, client name and the header the proxy adds. */
const received: { method: string; client: string | undefined; header: string | null }[] = [];
const handler = createMcpHandler(() => createServer(), { legacy: 'reject' });
let upstream: Endpoint;
let proxy: StdioProxy;

beforeAll(async () => {
  upstream = await listen(async (request) => {
    const body = (await request.clone().json()) as { method: string; params?: { _meta?: Record<string, { name?: string }> } };
    received.push({ method: body.method, client: body.params?._meta?.['io.modelcontextprotocol/clientInfo']?.name, header: request.headers.get('x-upstream-key') });
    return handler.fetch(request);
  });
  proxy = await startStdioProxy([
    '--policy',
    'test/proxy/fixtures/admin-only.policy.json',
    '--upstream-url',
    `${upstream.url}/mcp`,
    '--upstream-header',
    'x-upstream-key: k1',
  ]);
}, 30_000);

afterAll(async () => {
  await proxy?.stop();
  await upstream?.close();
  await handler.close();
});

describe('mcp-gate proxy --stdio in front of a 2026-07-28-only URL', () => {
  it('sends each message upstream with its own envelope and the --upstream-header headers', async () => {
    // A 2025-era client's initialize would be bridged (era-bridge.test.ts); this one speaks 2026-07-28.
    expect(proxy.stderr()).toContain('the session is bridged to it with stateless requests');
    expect(proxy.stderr()).toContain('serving 2026-07-28 clients too, each message gated on its own envelope');
    const lines = new RawLines(proxy.input, proxy.output);
    const answer = JSON.parse(await lines.request(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: envelope('stdio-client') })) as { result?: unknown };
    expect(answer.result).toMatchObject({ content: [{ type: 'text' }] });
    const fromClient = received.filter((request) => request.client === 'stdio-client');
    expect(fromClient.map((request) => request.method)).toContain('tools/call');
    expect(fromClient.every((request) => request.header === 'k1')).toBe(true);
  });
});

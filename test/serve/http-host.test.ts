import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { createGate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';

const hosts: HttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

describe('startHttpHost', () => {
  it('closes a session that stays idle past sessionIdleTimeoutMs', async () => {
    const gate = createGate({ policy: { version: 1, default: 'allow' }, metadata: demoMetadata });
    // 1 s, not less: on a loaded machine the client's initialize → initialized took over 150 ms, so the session was swept mid-connect.
    const host = await startHttpHost({ createServer: createDemoServer, gate, sessionIdleTimeoutMs: 1_000 });
    hosts.push(host);
    const client = new Client({ name: 'idle', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(host.url));
    expect(host.sessionCount).toBe(1);
    expect(await waitFor(() => host.sessionCount === 0, 6_000)).toBe(true);
    await client.close().catch(() => undefined);
  });
});

// `mcp-gate proxy --jwks FILE` in front of the recording upstream spawned over stdio (which writes
// every message it receives to stderr, passed on by the proxy): tokens verified against a key set
// read from a file, and nothing of the client's token in any message the upstream receives.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, waitFor, type RunningProxy } from './harness.js';
import { audience, createTestIssuer, issuer } from './identity-fixtures.js';

describe('mcp-gate proxy --jwks FILE (stdio upstream)', () => {
  let directory: string;
  let proxy: RunningProxy;
  let client: Client;
  let token: string;

  /** The messages the upstream processes received, from the proxy's stderr. */
  const received = (): string[] => [...proxy.stderr().matchAll(/mcp-gate proxy: upstream: received (.*)\n/g)].map((match) => match[1]!);

  beforeAll(async () => {
    const tokens = await createTestIssuer();
    directory = await mkdtemp(join(tmpdir(), 'mcp-gate-identity-'));
    const jwksFile = join(directory, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify(tokens.jwks));
    proxy = await startProxy([
      '--policy',
      'test/proxy/fixtures/token-scoped.policy.json',
      '--overlay',
      'test/proxy/fixtures/recording.overlay.json',
      '--upstream-cmd',
      `${process.execPath} test/wire/recording-upstream.mjs`,
      '--jwks',
      jwksFile,
      '--issuer',
      issuer,
      '--audience',
      audience,
    ]);
    token = await tokens.sign({ sub: 'alice', scope: 'mcp:admin', client_id: 'cli-app' });
    client = new Client({ name: 'alice-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('refuses a request without a token', async () => {
    const response = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
  });

  it("gates by the token's claims and sends nothing of the token upstream", async () => {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['secret-drop', 'public-echo', 'bulk-0']));
    expect(JSON.stringify(await client.callTool({ name: 'public-echo', arguments: { message: 'hi' } }))).toContain('echo: hi');
    const messages = await waitFor('the call upstream', () => {
      const all = received();
      return all.some((message) => message.includes('"public-echo"')) ? all : undefined;
    });
    // The session's own initialize went upstream, with the client's name…
    expect(messages.some((message) => message.includes('"alice-client"'))).toBe(true);
    // …and no message holds the token or any part of it.
    for (const part of token.split('.')) expect(messages.join('\n')).not.toContain(part);
    expect(messages.join('\n').toLowerCase()).not.toContain('authorization');
  });
});

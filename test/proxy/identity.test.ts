// `mcp-gate proxy --jwks URL --issuer ISS --audience AUD` in front of a recording HTTP upstream:
// real jose-signed tokens (keys made per run, the JWKS served on 127.0.0.1), real SDK clients over
// Streamable HTTP, the policy deciding on auth.* per token, bad tokens refused before any upstream
// request, and the client's Authorization never reaching the upstream.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from './harness.js';
import {
  audience,
  createTestIssuer,
  issuer,
  serveJwks,
  startRecordingHttpUpstream,
  type JwksServer,
  type RecordingHttpUpstream,
  type TestIssuer,
} from './identity-fixtures.js';

/** RFC 9728 §3.1 for the resource --audience names: what a client reaching the proxy through that URL fetches. */
const metadataUrl = 'https://gate.test/.well-known/oauth-protected-resource/mcp';
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('mcp-gate proxy --jwks (HTTP upstream)', () => {
  let tokens: TestIssuer;
  let jwksServer: JwksServer;
  let upstream: RecordingHttpUpstream;
  let proxy: RunningProxy;
  const clients: Client[] = [];
  let aliceToken: string;
  let bobToken: string;

  beforeAll(async () => {
    tokens = await createTestIssuer();
    jwksServer = await serveJwks(tokens.jwks);
    upstream = await startRecordingHttpUpstream();
    proxy = await startProxy([
      '--policy',
      'test/proxy/fixtures/token-scoped.policy.json',
      '--overlay',
      'test/proxy/fixtures/recording.overlay.json',
      '--upstream-url',
      upstream.url.href,
      '--jwks',
      jwksServer.url.href,
      '--issuer',
      issuer,
      '--audience',
      audience,
      '--upstream-header',
      'X-Upstream-Key: upstream-secret',
      '--forward-header',
      'X-Tenant',
    ]);
    aliceToken = await tokens.sign({ sub: 'alice', scope: 'mcp:read mcp:admin', client_id: 'cli-app' });
    bobToken = await tokens.sign({ sub: 'bob', scp: ['mcp:read'], azp: 'other-app' });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await proxy?.stop();
    await upstream?.close();
    await jwksServer?.close();
  });

  async function connectAs(token: string, name: string, tenant: string): Promise<Client> {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-tenant': tenant } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('fetched the key set at startup and says what it verifies', () => {
    expect(jwksServer.fetches).toBe(1);
    expect(proxy.stderr()).toContain(`mcp-gate proxy: verifying bearer tokens of ${issuer} for ${audience} (--jwks)`);
  });

  it('answers a request without a token with 401 and a challenge, and nothing reaches the upstream', async () => {
    const before = upstream.requests.length;
    const response = await post({});
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(await response.json()).toEqual({ error_description: 'no bearer token: send "Authorization: Bearer <token>"' });
    expect(upstream.requests.length).toBe(before);
  });

  it('serves the protected resource metadata the challenge points at: the --audience as the resource, the --issuer as its authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(new URL(path, proxy.url));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ resource: audience, authorization_servers: [issuer], bearer_methods_supported: ['header'] });
    }
  });

  const now = () => Math.floor(Date.now() / 1000);
  it.each<[string, (issuer: TestIssuer) => Promise<string>, string]>([
    ['another issuer', (t) => t.sign({ sub: 'alice', iss: 'https://evil.test' }), `the token's issuer is not "${issuer}"`],
    ['another audience', (t) => t.sign({ sub: 'alice', aud: 'https://other.test/mcp' }), `the token's audience does not include "${audience}"`],
    ['an expired token', (t) => t.sign({ sub: 'alice', exp: now() - 3600 }), 'the token has expired'],
    ['a token without "exp"', (t) => t.sign({ sub: 'alice' }, { expires: false }), 'the token has no valid "exp" claim'],
    ['a token not valid yet', (t) => t.sign({ sub: 'alice', nbf: now() + 3600 }), 'the token is not valid yet ("nbf")'],
    ['alg "none"', async () => new UnsecuredJWT({ sub: 'alice', iss: issuer, aud: audience, exp: now() + 600 }).encode(), "the token's algorithm is not accepted"],
    ['a signature by another key under the same kid', (t) => t.signWithStrangerKey({ sub: 'alice' }), "the token's signature does not verify"],
    ['a key id the JWKS does not hold', (t) => t.signWithStrangerKey({ sub: 'alice' }, { kid: 'key-2' }), 'no single key of the JWKS matches the token'],
    [
      'an unsigned payload',
      async () => Buffer.from(JSON.stringify({ sub: 'alice', iss: issuer, aud: audience })).toString('base64url'),
      'the token is not a well-formed signed JWT',
    ],
    ['a signed token with its signature cut off', async (t) => (await t.sign({ sub: 'alice' })).replace(/\.[^.]+$/, '.'), "the token's signature does not verify"],
  ])('refuses %s with 401 naming what failed, before any upstream request', async (_name, makeToken, description) => {
    const token = await makeToken(tokens);
    const before = upstream.requests.length;
    const response = await post({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer error="invalid_token", error_description="${description.replace(/"/g, '\\"')}", resource_metadata="${metadataUrl}"`);
    const body = await response.text();
    expect(JSON.parse(body)).toEqual({ error: 'invalid_token', error_description: description });
    for (const part of token.split('.').filter((piece) => piece.length > 8)) expect(challenge + body).not.toContain(part);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses an Authorization of another scheme', async () => {
    const response = await post({ authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error_description="the Authorization header holds another scheme than Bearer"');
  });

  it('decides per token: scopes, subject, issuer and client id reach auth.*', async () => {
    const alice = await connectAs(aliceToken, 'alice-client', 'tenant-a');
    const bob = await connectAs(bobToken, 'bob-client', 'tenant-b');
    const aliceTools = (await alice.listTools()).tools.map((tool) => tool.name);
    const bobTools = (await bob.listTools()).tools.map((tool) => tool.name);
    // scope "mcp:admin" (a string) opens the admin group; client_id cli-app the bulk tools; the issuer the echo.
    expect(aliceTools).toEqual(expect.arrayContaining(['public-echo', 'secret-drop', 'secret-meta', 'bulk-0']));
    // scp ["mcp:read"] (an array) does not; azp other-app is another client.
    expect(bobTools).toContain('public-echo');
    expect(bobTools.filter((name) => name.startsWith('secret-') || name.startsWith('bulk-'))).toEqual([]);
    expect((await alice.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('public-prompt');
    expect((await bob.listPrompts()).prompts.map((prompt) => prompt.name)).not.toContain('public-prompt');
    expect(JSON.stringify(await alice.callTool({ name: 'secret-drop', arguments: { table: 't' } }))).toContain('dropped t');
    const before = upstream.requests.length;
    const hidden = await bob.callTool({ name: 'secret-drop', arguments: { table: 't' } });
    expect(JSON.stringify(hidden)).toContain('Tool secret-drop not found');
    expect(
      upstream.requests
        .slice(before)
        .map((request) => request.body)
        .join('\n'),
    ).not.toContain('secret-drop');
  });

  it("never passes the client's Authorization upstream; sends --upstream-header and the session's --forward-header", async () => {
    expect(upstream.requests.length).toBeGreaterThan(4);
    for (const request of upstream.requests) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers['x-upstream-key']).toBe('upstream-secret');
      expect(JSON.stringify(request)).not.toContain(aliceToken.split('.')[2]!);
      expect(JSON.stringify(request)).not.toContain(bobToken.split('.')[2]!);
    }
    const tenantOf = (clientName: string) =>
      upstream.requests.find((request) => request.body.includes('"method":"initialize"') && request.body.includes(`"name":"${clientName}"`))?.headers['x-tenant'];
    expect(tenantOf('alice-client')).toBe('tenant-a');
    expect(tenantOf('bob-client')).toBe('tenant-b');
    // The startup check has no client session, so nothing to forward.
    expect(tenantOf('mcp-gate-proxy-startup-check')).toBeUndefined();
  });

  it('answers a session only for the caller whose token opened it', async () => {
    const alice = clients[0]!;
    const sessionId = (alice.transport as StreamableHTTPClientTransport).sessionId!;
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const asBob = await post({ ...headers, authorization: `Bearer ${bobToken}` }, list);
    expect(asBob.status).toBe(404);
    expect(await asBob.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const asAlice = await post({ ...headers, authorization: `Bearer ${aliceToken}` }, list);
    expect(asAlice.status).toBe(200);
    await asAlice.text();
  });
});

// `mcp-gate proxy` serving 2026-07-28 stateless requests (docs/proxy.md, "Protocol eras"): a real
// upstream on `@modelcontextprotocol/server` 2.4 (createMcpHandler, which records every request it
// receives) and real v2 SDK clients pinned to 2026-07-28, over 127.0.0.1 HTTP. Each request's own
// envelope and headers are its context; nothing naming a hidden primitive reaches the upstream.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { completable, createMcpHandler, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientInfoMetaKey } from '../../src/adapter/envelope.js';
import { createServer, createUngatedHandler, registryPolicyDocument, reportExtension } from '../server/fixtures.js';
import { listen, postModern, type Endpoint } from '../server/http.js';
import { startProxy, type RunningProxy } from './harness.js';
import { registerConfirmingDeploy, registerRegional, registerSlow } from './modern-upstream-tools.js';
import { audience, createTestIssuer, issuer, serveJwks, type JwksServer } from './identity-fixtures.js';

// The fixture's policy (admin primitives only for `x-role: admin`), and `echo` hidden from everyone.
const policyPath = join(tmpdir(), `mcp-gate-stateless-${process.pid}.policy.json`);
const policy = { ...registryPolicyDocument, rules: [...(registryPolicyDocument.rules ?? []), { id: 'no-echo', effect: 'deny', appliesTo: { names: ['echo'] } }] };

/** A promise and its resolve (Node 20 has no Promise.withResolvers). */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
const waitStarted = signalled();
const waitCancelled = signalled();

/** Every JSON-RPC request the upstream received, with the headers it came with. */
const received: {
  body: { method?: string; params?: { name?: string; uri?: string; ref?: { name?: string; uri?: string }; _meta?: Record<string, unknown> } };
  headers: Headers;
}[] = [];
const upstreamHandler = createMcpHandler(() => {
  const server = createServer();
  registerConfirmingDeploy(server);
  registerRegional(server);
  // An admin-only resource the upstream lets shared caches keep.
  server.registerResource(
    'shared-audit',
    'docs://shared-audit',
    { cacheHint: { cacheScope: 'public', ttlMs: 60_000 }, _meta: { 'mcp-gate': { groups: ['admin'] } } },
    (uri) => ({ contents: [{ uri: uri.href, text: 'shared audit' }] }),
  );
  server.registerTool('wait', { description: 'waits until its request is cancelled' }, async (context) => {
    waitStarted.resolve();
    await new Promise<void>((resolve) => context.mcpReq.signal.addEventListener('abort', () => resolve(), { once: true }));
    waitCancelled.resolve();
    return { content: [] };
  });
  registerSlow(server);
  return server;
});
let upstream: Endpoint;
let upstreamDown = false;
let proxy: RunningProxy;
let proxyEndpoint: Endpoint;

beforeAll(async () => {
  writeFileSync(policyPath, JSON.stringify(policy));
  upstream = await listen(async (request) => {
    // While `upstreamDown`, the upstream answers no JSON-RPC at all (as a load balancer in front of a crashed server).
    if (upstreamDown) return new Response('upstream unavailable', { status: 502 });
    const text = await request.clone().text();
    if (text !== '') received.push({ body: JSON.parse(text) as (typeof received)[number]['body'], headers: request.headers });
    return upstreamHandler.fetch(request);
  });
  proxy = await startProxy(['--policy', policyPath, '--upstream-url', `${upstream.url}/mcp`, '--forward-header', 'x-role']);
  proxyEndpoint = { url: proxy.url.origin, close: async () => undefined };
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await upstream?.close();
  await upstreamHandler.close();
});

async function pinnedClient(name: string, options: { headers?: Record<string, string>; capabilities?: Record<string, unknown> } = {}): Promise<ClientV2> {
  const client = new ClientV2({ name, version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: options.capabilities ?? {} });
  await client.connect(new StreamableHttpV2(proxy.url, { requestInit: { headers: options.headers ?? {} } }));
  return client;
}

const withTimeout = <T>(promise: Promise<T>, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 10_000).unref())]);

const toolNames = async (client: ClientV2) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe('mcp-gate proxy serving 2026-07-28 stateless requests from a 2026-07-28 upstream', () => {
  it('connects a v2 client pinned to 2026-07-28: server/discover is relayed', async () => {
    const client = await pinnedClient('pinned-plain');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()?.name).toBe('gated-v2');
      expect(proxy.stderr()).toContain('serving 2026-07-28 stateless requests too');
    } finally {
      await client.close();
    }
  });

  it('filters each request by its own envelope and headers', async () => {
    const plain = await pinnedClient('pinned-plain');
    const admin = await pinnedClient('pinned-admin', { headers: { 'x-role': 'admin' } });
    const exporter = await pinnedClient('pinned-exporter', { capabilities: { extensions: { [reportExtension]: {} } } });
    try {
      expect(await toolNames(plain)).toEqual(['deploy', 'regional', 'report', 'slow', 'wait']);
      expect(await toolNames(admin)).toEqual(['admin-reset', 'deploy', 'regional', 'report', 'slow', 'wait']);
      expect(await toolNames(exporter)).toEqual(['deploy', 'export', 'regional', 'report', 'slow', 'wait']);
      expect((await plain.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://readme', 'items://1']);
      expect((await admin.listResources()).resources.map((resource) => resource.uri).sort()).toEqual([
        'docs://audit',
        'docs://readme',
        'docs://shared-audit',
        'items://1',
        'vault://1',
      ]);
      // The envelope the upstream saw for the exporter's lists is the exporter's own.
      const exporterLists = received.filter(
        (request) => request.body.method === 'tools/list' && (request.body.params?._meta?.[clientInfoMetaKey] as { name?: string })?.name === 'pinned-exporter',
      );
      expect(exporterLists.length).toBeGreaterThan(0);
    } finally {
      await Promise.all([plain.close(), admin.close(), exporter.close()]);
    }
  });

  it('relays a visible call, and answers the version the envelope may use', async () => {
    const admin = await pinnedClient('pinned-admin', { headers: { 'x-role': 'admin' } });
    const exporter = await pinnedClient('pinned-exporter', { capabilities: { extensions: { [reportExtension]: {} } } });
    try {
      expect(await admin.callTool({ name: 'admin-reset', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'reset' }] });
      expect(await admin.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
      expect(await exporter.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'enabled' }] });
      const readme = await admin.readResource({ uri: 'docs://readme' });
      expect(readme.contents).toEqual([{ uri: 'docs://readme', text: 'readme' }]);
    } finally {
      await Promise.all([admin.close(), exporter.close()]);
    }
  });

  it("relays an upstream's input_required result and the client's retry with its answer", async () => {
    const client = await pinnedClient('pinned-eliciting', { capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      expect(await client.callTool({ name: 'deploy', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'deployed' }] });
      expect(asked).toEqual(['Deploy?']);
    } finally {
      await client.close();
    }
  });

  it("relays the upstream's progress for a call to the client that asked for it", async () => {
    const client = await pinnedClient('pinned-progress');
    const progress: unknown[] = [];
    try {
      const result = await client.callTool({ name: 'slow', arguments: {} }, { onprogress: (update) => progress.push(update) });
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
      expect(progress).toEqual([
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    } finally {
      await client.close();
    }
  });

  it("relays a call of a tool with a header parameter (SEP-2243 Mcp-Param-*) with its client's header", async () => {
    const client = await pinnedClient('pinned-regional');
    try {
      await client.listTools(); // the v2 client writes Mcp-Param-* headers for the tools it has listed
      expect(await client.callTool({ name: 'regional', arguments: { region: 'eu' } })).toMatchObject({ content: [{ type: 'text', text: 'region eu' }] });
      const sent = received.filter(({ body }) => body.method === 'tools/call' && body.params?.name === 'regional');
      expect(sent.map(({ headers }) => headers.get('mcp-param-region'))).toEqual(['eu']);
    } finally {
      await client.close();
    }
  });

  it('never lets a shared cache keep a read the policy decided per caller', async () => {
    const headers = { 'x-role': 'admin' };
    const direct = await postModern(upstream, 'resources/read', { uri: 'docs://shared-audit' }, { headers });
    expect(direct.body.result).toMatchObject({ cacheScope: 'public', ttlMs: 60_000 });
    const proxied = await postModern(proxyEndpoint, 'resources/read', { uri: 'docs://shared-audit' }, { headers });
    expect(proxied.body.result).toEqual({ ...direct.body.result, cacheScope: 'private' });
  });

  it('cancels the upstream request when its client closes the request', async () => {
    const client = await pinnedClient('pinned-cancelling');
    const controller = new AbortController();
    try {
      const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
      await withTimeout(waitStarted.promise, 'the upstream to get the call');
      controller.abort();
      await expect(call).rejects.toThrow();
      await withTimeout(waitCancelled.promise, 'the upstream to see the call cancelled');
    } finally {
      await client.close();
    }
  });

  it('answers a hidden call byte for byte as an upstream without it answers', async () => {
    // The same kinds of primitive, none of the hidden ones.
    const without = await listen(
      createUngatedHandler((server) => {
        server.registerTool('other', { description: 'not echo' }, () => ({ content: [] }));
        server.registerPrompt('other', { argsSchema: z.object({ topic: completable(z.string(), () => ['x']) }) }, () => ({ messages: [] }));
        server.registerResource('other', 'docs://other', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'other' }] }));
        server.registerResource('things', new ResourceTemplate('things://{id}', { list: undefined }), {}, (uri) => ({ contents: [{ uri: uri.href, text: 'thing' }] }));
      }),
    );
    try {
      const requests: [string, Record<string, unknown>, Record<string, string>][] = [
        ['tools/call', { name: 'echo', arguments: { text: 'x' } }, {}],
        ['tools/call', { name: 'admin-reset', arguments: {} }, {}],
        ['prompts/get', { name: 'admin-brief', arguments: { topic: 'ops' } }, {}],
        ['resources/read', { uri: 'docs://audit' }, {}],
        ['resources/read', { uri: 'vault://7' }, { 'x-role': 'guest' }],
        ['completion/complete', { ref: { type: 'ref/prompt', name: 'admin-brief' }, argument: { name: 'topic', value: 'o' } }, {}],
        ['completion/complete', { ref: { type: 'ref/resource', uri: 'vault://{id}' }, argument: { name: 'id', value: '' } }, {}],
      ];
      for (const [method, params, headers] of requests) {
        const hidden = await postModern(proxyEndpoint, method, params, { headers });
        const unknown = await postModern(without, method, params, { headers });
        expect({ method, status: hidden.status, text: hidden.text }).toEqual({ method, status: unknown.status, text: unknown.text });
        expect(hidden.text).toContain('"error"');
      }
    } finally {
      await without.close();
    }
  });

  it('never sends a hidden primitive upstream', () => {
    const forwarded = received.filter((request) => ['tools/call', 'prompts/get', 'resources/read', 'completion/complete'].includes(request.body.method ?? ''));
    expect(forwarded.length).toBeGreaterThan(0);
    for (const { body, headers } of forwarded) {
      const named = body.params?.name ?? body.params?.uri ?? body.params?.ref?.name ?? body.params?.ref?.uri ?? '';
      expect(named).not.toBe('echo');
      if (headers.get('x-role') !== 'admin') expect(['admin-reset', 'admin-brief', 'docs://audit', 'vault://7', 'vault://{id}']).not.toContain(named);
      expect(headers.get('mcp-session-id')).toBeNull();
    }
  });

  it('answers as unavailable while the upstream is down, and serves again once it is back', async () => {
    const call = () => postModern(proxyEndpoint, 'tools/call', { name: 'report', arguments: {} }, { clientInfo: { name: 'outage-client', version: '1.0.0' } });
    expect((await call()).body.result).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
    upstreamDown = true;
    try {
      const down = await call();
      expect({ status: down.status, text: down.text }).toEqual({
        status: 200,
        text: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The upstream server is not available"}}',
      });
      // A client the proxy has not seen yet: its lists cannot be fetched, and nothing unfiltered is answered.
      const newcomer = await postModern(proxyEndpoint, 'tools/list', {}, { clientInfo: { name: 'outage-newcomer', version: '1.0.0' } });
      expect(newcomer.body.error).toEqual({ code: -32603, message: 'The upstream server is not available' });
    } finally {
      upstreamDown = false;
    }
    expect((await call()).body.result).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
    const back = await postModern(proxyEndpoint, 'tools/list', {}, { clientInfo: { name: 'outage-newcomer', version: '1.0.0' } });
    expect((back.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name)).toContain('report');
  });

  it('keeps serving 2025-era sessions on the same listener', async () => {
    const client = new Client({ name: 'session-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(proxy.url, { requestInit: { headers: { 'x-role': 'admin' } } }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['admin-reset', 'deploy', 'regional', 'report', 'slow', 'wait']);
      expect(await client.callTool({ name: 'admin-reset', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'reset' }] });
    } finally {
      await client.close();
    }
  });
});

describe('mcp-gate proxy --jwks serving 2026-07-28 stateless requests', () => {
  // admin primitives for the token whose subject is alice, whatever the headers say.
  const tokenPolicyPath = join(tmpdir(), `mcp-gate-stateless-token-${process.pid}.policy.json`);
  let jwksServer: JwksServer;
  let tokenProxy: RunningProxy;
  let aliceToken: string;
  let bobToken: string;

  beforeAll(async () => {
    const tokens = await createTestIssuer();
    jwksServer = await serveJwks(tokens.jwks);
    writeFileSync(
      tokenPolicyPath,
      JSON.stringify({
        version: 1,
        default: 'allow',
        rules: [{ id: 'alice-admin', effect: 'deny', appliesTo: { groups: ['admin'] }, when: { '!=': [{ var: 'auth.subject' }, 'alice'] } }],
      }),
    );
    tokenProxy = await startProxy([
      '--policy',
      tokenPolicyPath,
      '--upstream-url',
      `${upstream.url}/mcp`,
      '--jwks',
      jwksServer.url.href,
      '--issuer',
      issuer,
      '--audience',
      audience,
    ]);
    aliceToken = await tokens.sign({ sub: 'alice' });
    bobToken = await tokens.sign({ sub: 'bob' });
  }, 60_000);

  afterAll(async () => {
    await tokenProxy?.stop();
    await jwksServer?.close();
  });

  it('refuses a request without a valid token before anything reaches the upstream', async () => {
    const before = received.length;
    const answer = await postModern({ url: tokenProxy.url.origin, close: async () => undefined }, 'tools/list', {});
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('Bearer');
    expect(received.length).toBe(before);
  });

  it("decides on each request's verified token, and never sends the token upstream", async () => {
    const before = received.length;
    const connectAs = async (token: string) => {
      const client = new ClientV2({ name: 'pinned-token', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHttpV2(tokenProxy.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return client;
    };
    const [alice, bob] = await Promise.all([connectAs(aliceToken), connectAs(bobToken)]);
    try {
      expect(await toolNames(alice)).toContain('admin-reset');
      expect(await toolNames(bob)).not.toContain('admin-reset');
      expect(await alice.callTool({ name: 'admin-reset', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'reset' }] });
      await expect(bob.callTool({ name: 'admin-reset', arguments: {} })).rejects.toThrow('Tool admin-reset not found');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
    const sent = received.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const { headers } of sent) expect(headers.get('authorization')).toBeNull();
    // alice's call went upstream; bob's went as a probe, never under the hidden name.
    expect(sent.filter(({ body }) => body.method === 'tools/call' && body.params?.name === 'admin-reset')).toHaveLength(1);
  });
});

// The era bridge (docs/proxy.md, "Protocol eras"): 2025-era sessions of `mcp-gate proxy`, over HTTP
// and --stdio, in front of an upstream that speaks only 2026-07-28 (`@modelcontextprotocol/server`
// 2.4's createMcpHandler with `legacy: 'reject'`, which records every request it receives), with
// real v1 SDK clients (2025-11-25). Each session's upstream side is 2026-07-28 stateless requests
// carrying an envelope built from its initialize; nothing naming a hidden primitive goes upstream.
// input_required: test/proxy/era-bridge-input.test.ts; lists after their TTL and supervision: era-bridge-lifetime.test.ts.
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitRequestSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { completable, createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey } from '../../src/adapter/envelope.js';
import { run } from '../../src/cli/run.js';
import { createServer, registryPolicyDocument } from '../server/fixtures.js';
import { listen, type Endpoint } from '../server/http.js';
import { rawAnswer, recordReceived, repositoryRoot, startProxy, type RunningProxy, type WireRecorder } from './harness.js';
import { registerConfirmingDeploy, registerRegional, registerSlow } from './modern-upstream-tools.js';

// The fixture's policy (admin primitives only for `x-role: admin`), and `echo` hidden from everyone.
const policyPath = join(tmpdir(), `mcp-gate-era-bridge-${process.pid}.policy.json`);
const allowAllPath = join(tmpdir(), `mcp-gate-era-bridge-${process.pid}.allow.json`);
const policy = { ...registryPolicyDocument, rules: [...(registryPolicyDocument.rules ?? []), { id: 'no-echo', effect: 'deny', appliesTo: { names: ['echo'] } }] };

type Received = { body: { method?: string; params?: Record<string, unknown> & { name?: string; uri?: string; ref?: { name?: string } } }; headers: Headers };
/** Every JSON-RPC request the upstream received, with its headers. */
const received: Received[] = [];

const upstreamHandler = createMcpHandler(
  () => {
    const server = createServer();
    registerConfirmingDeploy(server);
    registerRegional(server);
    registerSlow(server);
    return server;
  },
  { legacy: 'reject' },
);
// The same kinds of primitive, 2026-07-28 only, none of the hidden ones.
const withoutHandler = createMcpHandler(
  () => {
    const server = new McpServer({ name: 'gated-v2', version: '1.0.0' });
    server.registerTool('other', { description: 'not echo' }, () => ({ content: [] }));
    server.registerPrompt('other', { argsSchema: z.object({ topic: completable(z.string(), () => ['x']) }) }, () => ({ messages: [] }));
    server.registerResource('other', 'docs://other', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'other' }] }));
    server.registerResource('things', new ResourceTemplate('things://{id}', { list: undefined }), {}, (uri) => ({ contents: [{ uri: uri.href, text: 'thing' }] }));
    return server;
  },
  { legacy: 'reject' },
);

let upstream: Endpoint;
let without: Endpoint;
let proxy: RunningProxy;
let withoutProxy: RunningProxy;

beforeAll(async () => {
  writeFileSync(policyPath, JSON.stringify(policy));
  writeFileSync(allowAllPath, JSON.stringify({ version: 1, default: 'allow', rules: [] }));
  upstream = await listen(async (request) => {
    const text = await request.clone().text();
    if (text !== '') received.push({ body: JSON.parse(text) as Received['body'], headers: request.headers });
    return upstreamHandler.fetch(request);
  });
  without = await listen(withoutHandler);
  [proxy, withoutProxy] = await Promise.all([
    startProxy(['--policy', policyPath, '--upstream-url', `${upstream.url}/mcp`, '--forward-header', 'x-role', '--upstream-header', 'X-Upstream-Key: proxy-key']),
    startProxy(['--policy', allowAllPath, '--upstream-url', `${without.url}/mcp`]),
  ]);
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await withoutProxy?.stop();
  await upstream?.close();
  await without?.close();
});

interface Session {
  readonly client: Client;
  readonly recorder: WireRecorder;
}

/** A v1 SDK client (2025-11-25) in a session of the proxy at `url`. */
async function connect(url: URL, name: string, options: { headers?: Record<string, string>; capabilities?: Record<string, unknown> } = {}): Promise<Session> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  const recorded = recordReceived(new StreamableHTTPClientTransport(url, { requestInit: { headers: options.headers ?? {} } }));
  await client.connect(recorded.transport);
  return { client, recorder: recorded };
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
const fromClient = (name: string) =>
  received.filter(({ body }) => (body.params?.['_meta'] as Record<string, { name?: string }> | undefined)?.[clientInfoMetaKey]?.name === name);

/** What every bridged session must show: lists filtered, visible calls relayed, hidden ones answered as unknown, elicitation bridged. */
async function expectBridged(session: Session, hiddenAnswers: () => Promise<void>): Promise<void> {
  const { client } = session;
  expect(await toolNames(client)).toEqual(['deploy', 'regional', 'report', 'slow']);
  expect(await client.callTool({ name: 'report', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'disabled' }] });
  // The header parameter is written from the upstream's schema of the tool (a 2025-era client sends none); not ASCII, so in base64.
  expect(await client.callTool({ name: 'regional', arguments: { region: 'eu-ö' } })).toMatchObject({ content: [{ type: 'text', text: 'region eu-ö' }] });
  expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([{ uri: 'docs://readme', text: 'readme' }]);
  await hiddenAnswers();
}

describe('mcp-gate proxy bridging 2025-era HTTP sessions to a 2026-07-28-only upstream', () => {
  it('starts, and says it bridges 2025-era sessions', () => {
    expect(proxy.stderr()).toContain('in front of gated-v2: 8 tools');
    expect(proxy.stderr()).toContain('bridging 2025-era sessions to the upstream with stateless requests');
  });

  it("answers initialize from the upstream's server/discover, and sends each request with the session's envelope and headers", async () => {
    const { client, recorder } = await connect(proxy.url, 'bridged-admin', { headers: { 'x-role': 'admin' }, capabilities: { roots: {} } });
    try {
      expect(client.getServerVersion()).toEqual({ name: 'gated-v2', version: '1.0.0' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, prompts: {}, resources: {} });
      expect(await toolNames(client)).toEqual(['admin-reset', 'deploy', 'regional', 'report', 'slow']);
      // As a 2025-era server answers: without 2026-07-28's resultType and caching hints.
      const reset = JSON.parse(await rawAnswer(client, recorder, 'tools/call', { name: 'admin-reset', arguments: {} })) as { result: Record<string, unknown> };
      expect(reset.result).toMatchObject({ content: [{ type: 'text', text: 'reset' }] });
      expect(Object.keys(reset.result).sort()).toEqual(['_meta', 'content']);
      const sent = fromClient('bridged-admin');
      expect(sent.map(({ body }) => body.method)).toEqual(expect.arrayContaining(['server/discover', 'tools/list', 'prompts/list', 'tools/call']));
      for (const { body, headers } of sent) {
        expect(body.params?.['_meta']).toMatchObject({
          [protocolVersionMetaKey]: '2026-07-28',
          [clientInfoMetaKey]: { name: 'bridged-admin', version: '1.0.0' },
          [clientCapabilitiesMetaKey]: { roots: {} },
        });
        expect(headers.get('x-role')).toBe('admin');
        expect(headers.get('x-upstream-key')).toBe('proxy-key');
        expect(headers.get('mcp-protocol-version')).toBe('2026-07-28');
        expect(headers.get('mcp-session-id')).toBeNull();
      }
      // The only initialize the upstream ever got is the startup check's (refused: it speaks only 2026-07-28).
      const initializes = received.filter(({ body }) => body.method === 'initialize');
      expect(initializes.map(({ body }) => (body.params?.['clientInfo'] as { name?: string }).name)).toEqual(['mcp-gate-proxy-startup-check']);
    } finally {
      await client.close();
    }
  });

  it('filters lists and relays visible calls; answers hidden calls, gets and reads byte for byte as an upstream without them', async () => {
    const hidden = await connect(proxy.url, 'bridged-plain');
    const unknown = await connect(withoutProxy.url, 'bridged-plain');
    try {
      await expectBridged(hidden, async () => {
        const requests: [string, Record<string, unknown>][] = [
          ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
          ['tools/call', { name: 'admin-reset', arguments: {} }],
          ['prompts/get', { name: 'admin-brief', arguments: { topic: 'ops' } }],
          ['resources/read', { uri: 'docs://audit' }],
          ['resources/read', { uri: 'vault://7' }],
          ['completion/complete', { ref: { type: 'ref/prompt', name: 'admin-brief' }, argument: { name: 'topic', value: 'o' } }],
        ];
        for (const [method, params] of requests) {
          const hiddenAnswer = await rawAnswer(hidden.client, hidden.recorder, method, params);
          const unknownAnswer = await rawAnswer(unknown.client, unknown.recorder, method, params);
          expect({ method, answer: hiddenAnswer }).toEqual({ method, answer: unknownAnswer });
          expect(hiddenAnswer).toContain('"error"');
        }
      });
      expect((await hidden.client.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://readme', 'items://1']);
    } finally {
      await Promise.all([hidden.client.close(), unknown.client.close()]);
    }
  });

  it('never sends a hidden primitive upstream', () => {
    const forwarded = received.filter(({ body }) => ['tools/call', 'prompts/get', 'resources/read', 'completion/complete'].includes(body.method ?? ''));
    expect(forwarded.length).toBeGreaterThan(0);
    for (const { body, headers } of forwarded) {
      const named = body.params?.name ?? body.params?.uri ?? body.params?.ref?.name ?? '';
      expect(named).not.toBe('echo');
      if (headers.get('x-role') !== 'admin') expect(['admin-reset', 'admin-brief', 'docs://audit', 'vault://7']).not.toContain(named);
    }
  });

  it("relays the upstream's progress for a call to the session", async () => {
    const { client } = await connect(proxy.url, 'bridged-progress');
    const progress: unknown[] = [];
    try {
      const result = await client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: (update) => progress.push(update) });
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

  it('leaves any other method to the upstream to answer, whatever its name', async () => {
    const { client, recorder } = await connect(proxy.url, 'bridged-other');
    try {
      expect(JSON.parse(await rawAnswer(client, recorder, 'toString', {}))).toEqual({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } });
    } finally {
      await client.close();
    }
  });
});

describe('mcp-gate proxy --stdio bridged to a 2026-07-28-only upstream', () => {
  it('starts and serves the session, gated, with elicitation bridged', { timeout: 60_000 }, async () => {
    const [toProxy, fromProxy] = [new PassThrough(), new PassThrough()];
    const stop = new AbortController();
    const err: string[] = [];
    const running = run(['proxy', '--stdio', '--policy', policyPath, '--upstream-url', `${upstream.url}/mcp`], {
      cwd: repositoryRoot,
      stdout: () => undefined,
      stderr: (text) => err.push(text),
      readFile: (path) => readFile(path, 'utf8'),
      signal: stop.signal,
      stdio: { input: toProxy, output: fromProxy },
    });
    // The SDK's stdio framing is the same both ways: its server transport carries a client over the proxy's pipes.
    const client = new Client({ name: 'bridged-stdio', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
    const recorded = recordReceived(new StdioServerTransport(fromProxy, toProxy));
    try {
      await client.connect(recorded.transport, { timeout: 30_000 });
      await expectBridged({ client, recorder: recorded }, async () => {
        const answer = await rawAnswer(client, recorded, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
        expect(JSON.parse(answer)).toEqual({ jsonrpc: '2.0', error: { code: -32602, message: 'Tool echo not found' } });
      });
      expect(await client.request({ method: 'tools/call', params: { name: 'deploy', arguments: {} } }, ResultSchema)).toMatchObject({
        content: [{ type: 'text', text: 'deployed' }],
      });
      expect(err.join('')).toContain('speaking MCP on stdin/stdout (the upstream speaks only 2026-07-28: the session is bridged to it');
      expect(fromClient('bridged-stdio').filter(({ body }) => body.method === 'tools/call' && body.params?.name === 'echo')).toEqual([]);
    } finally {
      await client.close();
      stop.abort();
    }
    expect(await running).toBe(0);
  });
});

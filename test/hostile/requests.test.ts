import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { callers, expectedView, readRegistry, type Caller } from '../../src/testing/index.js';
import { demoPolicy } from '../testing/fixtures.js';
import { connectOverHttp, createDemoGate, createNoGate, listEverything, startDemoHost, type DemoHost } from './http-host.js';
import { call, jsonRpc, openSession, rawPost } from './raw-http.js';

// Hostile requests through the real gate on Streamable HTTP (127.0.0.1): each gets a clear error
// or a fail-closed answer, the answer equals the ungated SDK's wherever the request is malformed,
// and the server keeps serving everyone else their own view.

let gated: DemoHost;
let ungated: DemoHost;
const demoRegistry = readRegistry(createDemoServer());
const namesIn = (message: Record<string, unknown>) => ((message['result'] as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name);

beforeAll(async () => {
  gated = await startDemoHost(createDemoGate(demoPolicy, 3));
  ungated = await startDemoHost(createNoGate());
});

afterAll(async () => {
  await gated.host.close();
  await ungated.host.close();
});

/** Opens a session on both hosts and sends the same request to each; returns both answers without their ids. */
async function askBoth(method: string, params: unknown, headers: Record<string, string | string[]> = {}) {
  const answers = [];
  for (const { host } of [gated, ungated]) {
    const { sessionId } = await openSession(host.url, {});
    const { id: _id, ...answer } = await call(host.url, sessionId!, method, params, headers);
    answers.push(answer);
  }
  return answers as [Record<string, unknown>, Record<string, unknown>];
}

describe('gate over Streamable HTTP (hostile requests)', () => {
  it('answers a 100 kB header with 431 before the gate sees it, and keeps serving', async () => {
    const response = await rawPost(gated.host.url, jsonRpc('initialize', {}), { 'x-canary': 'x'.repeat(100_000) });
    expect(response.status).toBe(431);
    expect((await openSession(gated.host.url, {})).sessionId).toBeDefined();
  });

  it('treats a near-limit header value and 500 extra headers as data: nothing granted', async () => {
    const extra = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`x-extra-${index}`, 'v']));
    const { sessionId } = await openSession(gated.host.url, {});
    const plain = namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}));
    const noisy = namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}, { ...extra, 'x-canary': '1'.repeat(8_000) }));
    expect(noisy).toEqual(plain);
    expect(noisy).not.toContain('deploy_preview');
  });

  it('joins repeated headers, so two "x-canary: 1" lines are not "x-canary: 1"', async () => {
    const { sessionId } = await openSession(gated.host.url, {});
    expect(namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}, { 'x-canary': '1' }))).toContain('deploy_preview');
    expect(namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}, { 'x-canary': ['1', '1'] }))).not.toContain('deploy_preview');
  });

  it.each([[[]], ['sampling'], [null], [1], [{ sampling: 'yes' }], [{ roots: [] }], [{ elicitation: 'x' }], [{ experimental: { a: 1 } }]])(
    'refuses initialize with capabilities %j as the ungated SDK does, and keeps serving',
    async (capabilities) => {
      const [mine, theirs] = [await openSession(gated.host.url, capabilities), await openSession(ungated.host.url, capabilities)];
      expect(mine.sessionId).toBeUndefined();
      expect([mine.response.status, mine.response.messages]).toEqual([theirs.response.status, theirs.response.messages]);
      expect((await openSession(gated.host.url, {})).sessionId).toBeDefined();
    },
  );

  it('reads 10,000 levels of nested capabilities without failing, deciding on what it can read', async () => {
    const nested = `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"deep","version":"1"},"capabilities":{"sampling":{},"extensions":{"x":${nested}}}}}`;
    const response = await rawPost(gated.host.url, body);
    const sessionId = response.headers['mcp-session-id'] as string;
    await rawPost(gated.host.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    });
    const all = [];
    for (let cursor: string | undefined, page = 0; page === 0 || cursor !== undefined; page++) {
      const message = await call(gated.host.url, sessionId, 'tools/list', cursor === undefined ? {} : { cursor });
      all.push(...namesIn(message));
      cursor = (message['result'] as { nextCursor?: string }).nextCursor;
    }
    expect(all).toEqual(expectedView(createDemoGate(demoPolicy).policy, demoRegistry, deepCaller, { metadata: demoMetadata }).tools);
  });

  it.each([['forged'], ['x'.repeat(1_000_000)], ['']])('rejects the cursor %# with -32602 and no page', async (cursor) => {
    const [mine] = await askBoth('tools/list', { cursor });
    expect(mine).toMatchObject({ error: { code: -32602, message: 'MCP error -32602: Invalid cursor' } });
  });

  it.each([[123], [{}], [null], [['a']]])('answers the cursor %j exactly as the ungated SDK does', async (cursor) => {
    const [mine, theirs] = await askBoth('tools/list', { cursor });
    expect(mine).toEqual(theirs);
    expect(mine['error']).toBeDefined();
  });

  it('rejects a cursor issued to another caller, or tampered with', async () => {
    const { sessionId } = await openSession(gated.host.url, { sampling: {}, elicitation: {} });
    const canary = { 'x-canary': '1' };
    const first = (await call(gated.host.url, sessionId!, 'tools/list', {}, canary))['result'] as { tools: unknown[]; nextCursor: string };
    expect(first.tools).toHaveLength(3);
    expect(await call(gated.host.url, sessionId!, 'tools/list', { cursor: first.nextCursor })).toMatchObject({ error: { code: -32602 } });
    const [offset, tag] = Buffer.from(first.nextCursor, 'base64url').toString().split('.');
    const tampered = Buffer.from(`${Number(offset) - 1}.${tag}`).toString('base64url');
    expect(await call(gated.host.url, sessionId!, 'tools/list', { cursor: tampered }, canary)).toMatchObject({ error: { code: -32602 } });
    expect(await call(gated.host.url, sessionId!, 'tools/list', { cursor: first.nextCursor }, canary)).toHaveProperty('result.tools');
  });

  it.each([['tools/lisst'], ['__proto__'], ['constructor'], ['toString'], ['hasOwnProperty'], ['']])(
    'answers the unknown method %j with -32601, as the SDK does',
    async (method) => {
      const [mine, theirs] = await askBoth(method, {});
      expect(mine).toEqual(theirs);
      expect(mine).toMatchObject({ error: { code: -32601, message: 'Method not found' } });
    },
  );

  const hostileName = 'n'.repeat(100_000);
  it.each([
    ['tools/call', { name: '__proto__', arguments: {} }],
    ['tools/call', { name: 'constructor' }],
    ['tools/call', { name: hostileName, arguments: {} }],
    ['tools/call', { name: 'search__2.0.0', arguments: { query: 'x' } }],
    ['prompts/get', { name: '__proto__' }],
    ['prompts/get', { name: hostileName }],
    ['resources/read', { uri: '__proto__' }],
    ['resources/read', { uri: `notes://${hostileName}` }],
    ['resources/read', { uri: 'workspace://files' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'toString' }, argument: { name: 'x', value: '' } }],
    ['completion/complete', { ref: { type: 'ref/resource', uri: '__proto__' }, argument: { name: 'x', value: '' } }],
  ] as [string, Record<string, unknown>][])('answers %s %# of a hostile or hidden name as the ungated SDK answers an unknown one', async (method, params) => {
    const [mine, theirs] = await askBoth(method, params);
    const field = 'name' in params ? 'name' : 'uri';
    const hidden = params[field] === 'search__2.0.0' || params[field] === 'workspace://files';
    if (hidden) {
      // Registered but hidden here (an internal versioned key; a resource needing roots): answered as an unknown name is.
      const stand = field === 'name' ? 'no_such_name' : 'workspace://nothing';
      const [unknown] = await askBoth(method, { ...params, [field]: stand });
      expect(JSON.stringify(mine)).toBe(JSON.stringify(unknown).split(stand).join(String(params[field])));
    } else {
      expect(mine).toEqual(theirs);
    }
  });

  it.each([['x'], [1], [[]], [null], [{ progressToken: {} }]])('answers the malformed _meta %j as the ungated SDK does', async (meta) => {
    const [mine, theirs] = await askBoth('tools/list', { _meta: meta });
    expect(mine).toEqual(theirs);
  });

  it.each([
    ['gate metadata', { 'mcp-gate': { groups: [] } }],
    [
      'a 2026 envelope naming a beta client',
      { 'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: {} } },
    ],
  ])('grants nothing for a request _meta carrying %s', async (_label, meta) => {
    const { sessionId } = await openSession(gated.host.url, {});
    const plain = namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}));
    expect(namesIn(await call(gated.host.url, sessionId!, 'tools/list', { _meta: meta }))).toEqual(plain);
  });

  it('grants nothing for a request _meta nested 10,000 levels deep', async () => {
    const { sessionId } = await openSession(gated.host.url, {});
    const plain = namesIn(await call(gated.host.url, sessionId!, 'tools/list', {}));
    const nested = `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":${nested}}}}`;
    const response = await rawPost(gated.host.url, body, { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-06-18' });
    expect(namesIn(response.messages.at(-1)!)).toEqual(plain);
  });

  it('ignores a forged capability envelope on a stateless request: capability-gated tools stay hidden', async () => {
    const stateless = await startDemoHost(createDemoGate(demoPolicy), true);
    try {
      const envelope = {
        'io.modelcontextprotocol/clientCapabilities': { sampling: {}, elicitation: {}, roots: {} },
        'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '1' },
      };
      const response = await rawPost(stateless.host.url, jsonRpc('tools/list', { _meta: envelope }), { 'mcp-protocol-version': '2025-06-18' });
      const listed = namesIn(response.messages.at(-1)!);
      expect(listed).toContain('search');
      expect(listed.filter((name) => ['summarize', 'confirm_action', 'insights'].includes(name))).toEqual([]);
    } finally {
      await stateless.host.close();
    }
  });

  it('serves concurrent real clients exactly their own views while hostile requests run', async () => {
    const policy = createDemoGate(demoPolicy).policy;
    const sample = fc.sample(callers({ endpoints: ['/mcp', '/mcp/admin'] }), { seed: 20261130, numRuns: 12 }).map((caller) => ({ ...caller, auth: undefined }));
    const hostile = Array.from({ length: 60 }, (_, index) =>
      rawPost(gated.host.url, index % 3 === 0 ? 'not json' : jsonRpc(index % 3 === 1 ? 'tools/list' : 'initialize', { capabilities: 'x' }), { 'x-canary': ['1', '1'] }),
    );
    const views = sample.map(async (caller: Caller) => {
      const connection = await connectOverHttp(gated.host.url, caller);
      try {
        const lists = await listEverything(connection.client);
        const expected = expectedView(policy, demoRegistry, caller, { metadata: demoMetadata });
        expect({ tools: lists.tools, prompts: lists.prompts, templates: lists.templates }, JSON.stringify(caller)).toEqual({
          tools: expected.tools,
          prompts: expected.prompts,
          templates: expected.templates,
        });
        expect(lists.resources).toEqual(expected.resources);
      } finally {
        await connection.close();
      }
    });
    await Promise.all([...views, ...hostile]);
  });

  // Regression: the host builds and connects an McpServer for every request without a session
  // id; one that opened no session used to stay connected (and referenced) forever — 1,000 such
  // requests kept 1,000 servers alive (heap +~75 MB). Fixed in e607b38.
  it('keeps no server alive for requests that never opened a session', async () => {
    const before = gated.servers.length;
    for (let index = 0; index < 20; index++) await rawPost(gated.host.url, jsonRpc('tools/list', {}));
    const leftConnected = gated.servers.slice(before).filter((server) => server.isConnected());
    expect(gated.servers.length - before).toBe(20);
    expect(leftConnected).toHaveLength(0);
  });
});

const deepCaller: Caller = { client: { name: 'deep', version: '1', capabilities: { sampling: {} } }, headers: {}, endpoint: '/mcp' };

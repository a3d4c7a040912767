// `mcp-gate proxy` in front of a real third-party server: @modelcontextprotocol/server-everything
// from npm, spawned over stdio, with the overlay in test/proxy/fixtures hiding some of its tools,
// a prompt, a resource and a template from callers that are not admins.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingCommand, rawAnswer, recordReceived, repositoryRoot, startProxy, waitFor, type RunningProxy, type WireRecorder } from './harness.js';

const policyArgs = ['--policy', 'test/proxy/fixtures/admin-only.policy.json', '--overlay', 'test/proxy/fixtures/everything.overlay.json'];

interface Caller {
  readonly client: Client;
  readonly recorder: WireRecorder;
}

async function connectCaller(url: URL, role: string): Promise<Caller> {
  const client = new Client({ name: `${role}-test`, version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: `sampled for ${role}` } }));
  const { transport, ...recorder } = recordReceived(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-role': role } } }));
  await client.connect(transport);
  return { client, recorder };
}

/** Every item of a list, following the proxy's cursors (bounded). */
async function listAll(client: Client, method: string, field: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const result = (await client.request({ method, params: cursor === undefined ? {} : { cursor } } as never, ResultSchema)) as Record<string, unknown>;
    const items = result[field] as { name: string }[];
    expect(items.length).toBeLessThanOrEqual(5);
    names.push(...items.map((item) => item.name));
    cursor = result['nextCursor'] as string | undefined;
    if (cursor === undefined) return names;
  }
  throw new Error(`${method} did not end within 50 pages`);
}

describe('mcp-gate proxy in front of server-everything (npm) over stdio', () => {
  let proxy: RunningProxy;
  let visitor: Caller;
  let admin: Caller;
  let direct: Caller;
  let decisionLogPath: string;

  beforeAll(async () => {
    decisionLogPath = join(await mkdtemp(join(tmpdir(), 'mcp-gate-proxy-')), 'decisions.jsonl');
    proxy = await startProxy([...policyArgs, '--page-size', '5', '--decision-log', decisionLogPath, '--upstream-cmd', everythingCommand]);
    [visitor, admin] = await Promise.all([connectCaller(proxy.url, 'visitor'), connectCaller(proxy.url, 'admin')]);
    // The same server without the proxy, for its own answers to names it does not have.
    const [command, ...args] = everythingCommand.split(' ');
    const client = new Client({ name: 'direct-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const { transport, ...recorder } = recordReceived(new StdioClientTransport({ command: command!, args, cwd: repositoryRoot, stderr: 'pipe' }));
    await client.connect(transport);
    direct = { client, recorder };
  }, 60_000);

  afterAll(async () => {
    await Promise.all([visitor?.client.close(), admin?.client.close(), direct?.client.close()]);
    await proxy?.stop();
    await rm(dirname(decisionLogPath), { recursive: true, force: true });
  });

  it('warns at startup about an overlay glob that matches nothing', () => {
    expect(proxy.stderr()).toContain('test/proxy/fixtures/everything.overlay.json: metadata.tool:no-such-tool-*: warning: matches no primitive of the upstream');
    expect(proxy.stderr()).toMatch(/in front of mcp-servers\/everything: \d+ tools, 4 prompts, 7 resources, 2 resource templates/);
  });

  it('lists, page by page with its own cursors, only what each caller may see', async () => {
    const visitorTools = await listAll(visitor.client, 'tools/list', 'tools');
    const adminTools = await listAll(admin.client, 'tools/list', 'tools');
    expect(visitorTools).not.toContain('get-env');
    expect(visitorTools.filter((name) => name.startsWith('trigger-'))).toEqual([]);
    expect(visitorTools).toContain('echo');
    expect(adminTools).toEqual(expect.arrayContaining(['get-env', 'trigger-long-running-operation', 'trigger-sampling-request', 'echo']));
    expect(adminTools.length).toBeGreaterThan(visitorTools.length);
    expect(await listAll(visitor.client, 'prompts/list', 'prompts')).toEqual(['simple-prompt', 'completable-prompt', 'resource-prompt']);
    expect(await listAll(admin.client, 'prompts/list', 'prompts')).toContain('args-prompt');
    const visitorResources = await listAll(visitor.client, 'resources/list', 'resources');
    expect(visitorResources).not.toContain('architecture.md');
    expect(visitorResources.length).toBe(6);
    expect(await listAll(visitor.client, 'resources/templates/list', 'resourceTemplates')).toEqual(['Dynamic Text Resource']);
    // The same pages for the same caller, by name: the gate's order is the upstream's.
    expect(await listAll(visitor.client, 'tools/list', 'tools')).toEqual(visitorTools);
  });

  it('rejects a cursor it did not issue, or issued to another caller', async () => {
    const first = await visitor.client.listTools();
    expect(first.nextCursor).toBeDefined();
    await expect(admin.client.listTools({ cursor: first.nextCursor })).rejects.toThrow('MCP error -32602: Invalid cursor');
    await expect(visitor.client.listTools({ cursor: 'not-a-cursor' })).rejects.toThrow('MCP error -32602: Invalid cursor');
  });

  it('answers a hidden name byte for byte as the upstream answers a name it does not have', async () => {
    const cases: Array<[string, (name: string) => Record<string, unknown>, string]> = [
      ['tools/call', (name) => ({ name, arguments: {} }), 'get-env'],
      ['tools/call', (name) => ({ name, arguments: { prompt: 'hi', maxTokens: 5 } }), 'trigger-sampling-request'],
      ['prompts/get', (name) => ({ name, arguments: { city: 'Paris' } }), 'args-prompt'],
      ['resources/read', (uri) => ({ uri }), 'demo://resource/static/document/architecture.md'],
      ['resources/read', (uri) => ({ uri }), 'demo://resource/dynamic/blob/1'],
      ['completion/complete', (name) => ({ ref: { type: 'ref/prompt', name }, argument: { name: 'city', value: 'P' } }), 'args-prompt'],
      ['completion/complete', (uri) => ({ ref: { type: 'ref/resource', uri }, argument: { name: 'resourceId', value: '1' } }), 'demo://resource/dynamic/blob/{resourceId}'],
    ];
    for (const [method, params, hidden] of cases) {
      const unknown = hidden.includes('://') ? hidden.replace('demo://resource/', 'demo://never-registered/') : `never-registered-${hidden}`;
      const hiddenAnswer = await rawAnswer(visitor.client, visitor.recorder, method, params(hidden));
      const unknownThroughProxy = await rawAnswer(visitor.client, visitor.recorder, method, params(unknown));
      const unknownDirect = await rawAnswer(direct.client, direct.recorder, method, params(unknown));
      expect(hiddenAnswer, `${method} ${hidden}`).toBe(unknownThroughProxy.split(unknown).join(hidden));
      expect(unknownThroughProxy, `${method} ${unknown} through the proxy and direct`).toBe(unknownDirect);
      // Not vacuous: the admin gets something else for the same request.
      expect(await rawAnswer(admin.client, admin.recorder, method, params(hidden)), `${method} ${hidden} as admin`).not.toBe(hiddenAnswer);
    }
  });

  it('writes the decision on a hidden tool to the decision log, as serve does', async () => {
    await visitor.client.callTool({ name: 'get-env', arguments: {} });
    const line = await waitFor('the decision on get-env in the log', () =>
      readFileSync(decisionLogPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((record) => (record['primitive'] as { name?: string } | undefined)?.name === 'get-env'),
    );
    expect(line).toMatchObject({
      method: 'tools/call',
      primitive: { kind: 'tool', name: 'get-env' },
      allowed: false,
      reason: 'rule',
      ruleId: 'admin-only',
      endpoint: '/mcp',
      client: 'visitor-test',
    });
  });

  it('relays a sampling request from the upstream to the caller whose tool call asked for it', async () => {
    const result = await admin.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
    expect(JSON.stringify(result.content)).toContain('sampled for admin');
  });

  it('relays progress notifications of a forwarded call', async () => {
    const before = admin.recorder.notifications('notifications/progress').length;
    const result = await admin.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, undefined, {
      onprogress: () => undefined,
      timeout: 20_000,
    });
    // Read off the wire, before the SDK client (which can drop an update arriving with the response).
    const relayed = admin.recorder.notifications('notifications/progress').slice(before);
    expect(relayed.map((notification) => notification.params?.['progress'])).toEqual([1, 2]);
    expect(JSON.stringify(result.content)).toContain('Long running operation completed');
  });

  it('refuses a Host header that is not loopback (DNS rebinding), as serve does, before any upstream is opened', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
    });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const headers = { host: `attacker.example:${proxy.url.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const outgoing = httpRequest(proxy.url, { method: 'POST', headers, timeout: 5_000 }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer')));
      outgoing.on('error', reject);
      outgoing.end(initialize);
    });
    expect(answer).toEqual({ status: 403, body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Host not allowed"},"id":null}' });
  });
});

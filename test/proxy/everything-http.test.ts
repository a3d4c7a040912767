// `mcp-gate proxy --upstream-url` in front of @modelcontextprotocol/server-everything from npm
// serving Streamable HTTP (its streamableHttp CLI, one process for the file): every primitive kind
// gated, and sampling and elicitation round trips from the upstream through the proxy to the
// caller whose tool call asked for them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp, type EverythingHttpUpstream } from './everything-http-upstream.js';
import { rawAnswer, recordReceived, startProxy, type RunningProxy, type WireRecorder } from './harness.js';

interface Caller {
  readonly client: Client;
  readonly recorder: WireRecorder;
  /** The messages of the elicitation requests this caller was sent. */
  readonly elicited: string[];
}

async function connectCaller(url: URL, role: string): Promise<Caller> {
  const client = new Client({ name: `${role}-test`, version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  const elicited: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: `sampled for ${role}` } }));
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params.message);
    return { action: 'accept', content: { name: `${role} name` } };
  });
  const { transport, ...recorder } = recordReceived(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-role': role } } }));
  await client.connect(transport);
  return { client, recorder, elicited };
}

describe('mcp-gate proxy in front of server-everything (npm) over Streamable HTTP', () => {
  let upstream: EverythingHttpUpstream;
  let proxy: RunningProxy;
  let visitor: Caller;
  let admin: Caller;

  beforeAll(async () => {
    upstream = await startEverythingHttp();
    proxy = await startProxy([
      '--policy',
      'test/proxy/fixtures/admin-only.policy.json',
      '--overlay',
      'test/proxy/fixtures/everything.overlay.json',
      '--upstream-url',
      upstream.url.href,
    ]);
    [visitor, admin] = await Promise.all([connectCaller(proxy.url, 'visitor'), connectCaller(proxy.url, 'admin')]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([visitor?.client.close(), admin?.client.close()]);
    await proxy?.stop();
    await upstream?.kill();
  });

  it('gates every primitive kind of the HTTP upstream', async () => {
    const [visitorTools, adminTools] = await Promise.all([visitor.client.listTools(), admin.client.listTools()]);
    const adminToolNames = adminTools.tools.map((tool) => tool.name);
    expect(adminToolNames).toEqual(expect.arrayContaining(['get-env', 'trigger-sampling-request', 'trigger-elicitation-request', 'echo']));
    expect(visitorTools.tools.map((tool) => tool.name)).toEqual(adminToolNames.filter((name) => name !== 'get-env' && !name.startsWith('trigger-')));
    expect((await visitor.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['simple-prompt', 'completable-prompt', 'resource-prompt']);
    expect((await admin.client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('args-prompt');
    const visitorResources = (await visitor.client.listResources()).resources.map((resource) => resource.uri);
    expect(visitorResources).not.toContain('demo://resource/static/document/architecture.md');
    expect((await admin.client.listResources()).resources.map((resource) => resource.uri)).toContain('demo://resource/static/document/architecture.md');
    expect((await visitor.client.listResourceTemplates()).resourceTemplates.map((template) => template.name)).toEqual(['Dynamic Text Resource']);
    const prompt = await visitor.client.getPrompt({ name: 'simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);
    const read = await visitor.client.readResource({ uri: visitorResources[0]! });
    expect(read.contents[0]?.uri).toBe(visitorResources[0]);
  });

  it('answers a hidden tool as the upstream answers one it does not have', async () => {
    const hidden = await rawAnswer(visitor.client, visitor.recorder, 'tools/call', { name: 'get-env', arguments: {} });
    const unknown = await rawAnswer(visitor.client, visitor.recorder, 'tools/call', { name: 'never-registered-get-env', arguments: {} });
    expect(hidden).toBe(unknown.split('never-registered-get-env').join('get-env'));
    expect(await rawAnswer(admin.client, admin.recorder, 'tools/call', { name: 'get-env', arguments: {} })).not.toBe(hidden);
  });

  it('relays the upstream’s sampling request to the caller whose call asked for it', async () => {
    const result = await admin.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
    expect(JSON.stringify(result.content)).toContain('sampled for admin');
  });

  it('relays the upstream’s elicitation request and its answer', async () => {
    const result = await admin.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    expect(admin.elicited).toEqual(['Please provide inputs for the following fields:']);
    expect(visitor.elicited).toEqual([]);
    expect(JSON.stringify(result.content)).toContain('Name: admin name');
  });
});

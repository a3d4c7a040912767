// The real `mcp-gate` bin (`node dist/cli/main.js proxy --stdio`, this run's build) in front of an
// upstream that writes every message it receives to stderr, which the proxy passes on to its own
// stderr: the proof that nothing naming a hidden primitive reaches the upstream.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { rawAnswer, recordReceived, repositoryRoot, waitFor, type WireRecorder } from './harness.js';

const upstreamCommand = `${process.execPath} test/wire/recording-upstream.mjs`;

describe('mcp-gate proxy --stdio in front of a recording upstream', () => {
  let client: Client;
  let recorder: WireRecorder;
  let stderr = '';
  const listChanged: number[] = [];

  /** The messages the upstream of this session received, from the proxy's stderr. */
  const received = (): unknown[] => [...stderr.matchAll(/mcp-gate proxy: upstream: received (.*)\n/g)].map((match) => JSON.parse(match[1]!) as unknown);

  beforeAll(async () => {
    expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        builtBin,
        'proxy',
        '--stdio',
        '--policy',
        'test/proxy/fixtures/admin-only.policy.json',
        '--overlay',
        'test/proxy/fixtures/recording.overlay.json',
        '--upstream-cmd',
        upstreamCommand,
      ],
      cwd: repositoryRoot,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    client = new Client({ name: 'visitor-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: 'over stdio' } }));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(Date.now()));
    const recorded = recordReceived(transport);
    recorder = recorded;
    await client.connect(recorded.transport, { timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
  });

  it('initializes the upstream with the client’s own name and capabilities', async () => {
    const initialize = await waitFor('the upstream session’s initialize', () =>
      received().find((message) => (message as { method?: string; params?: { clientInfo?: { name?: string } } }).params?.clientInfo?.name === 'visitor-client'),
    );
    expect((initialize as { params: { capabilities: unknown } }).params.capabilities).toEqual({ sampling: {} });
    expect(client.getServerVersion()?.name).toBe('recording-upstream');
  });

  it('sends nothing naming a hidden primitive upstream, and answers each as unknown', async () => {
    // The proxy reads the upstream's four lists when the client's session opens; on a loaded
    // machine their lines can still be on the way, so wait for them before counting.
    const listMethods = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
    await waitFor('the client session’s initial lists upstream', () => {
      const methods = received().map((message) => (message as { method?: string }).method);
      const opened = methods.lastIndexOf('initialize');
      return listMethods.every((method) => methods.indexOf(method, opened) !== -1) ? true : undefined;
    });
    const before = received().length;
    const hiddenRequests: Array<[string, Record<string, unknown>]> = [
      ['tools/call', { name: 'secret-drop', arguments: { table: 'users' } }],
      ['tools/call', { name: 'secret-meta', arguments: {} }],
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'test://docs/secret' }],
      ['resources/subscribe', { uri: 'test://docs/secret' }],
      ['resources/read', { uri: 'test://secret/42' }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://secret/{id}' }, argument: { name: 'id', value: '' } }],
    ];
    for (const [method, params] of hiddenRequests) await rawAnswer(client, recorder, method, params);
    const unknownAnswer = await rawAnswer(client, recorder, 'tools/call', { name: 'never-registered', arguments: {} });
    const hiddenAnswer = await rawAnswer(client, recorder, 'tools/call', { name: 'secret-drop', arguments: {} });
    expect(hiddenAnswer).toBe(unknownAnswer.split('never-registered').join('secret-drop'));
    // One message upstream per request (a probe for each hidden one), none naming a secret.
    const sent = await waitFor('every request upstream', () => (received().length >= before + hiddenRequests.length + 2 ? received().slice(before) : undefined));
    expect(sent.length).toBe(hiddenRequests.length + 2);
    expect(JSON.stringify(sent)).not.toContain('secret');
  });

  it('refreshes on the upstream’s list_changed and tells the client only when its view changed', async () => {
    await client.callTool({ name: 'add-public-tool', arguments: {} });
    await waitFor('the first list_changed', () => (listChanged.length >= 1 ? true : undefined), 10_000);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('public-late-1');
    // A tool this client may not see changes nothing it sees: no notification. The next public
    // one is announced; refreshes run in order, so a count of 2 means none came for the secret.
    await client.callTool({ name: 'add-secret-tool', arguments: {} });
    await client.callTool({ name: 'add-public-tool', arguments: {} });
    await waitFor('the second list_changed', () => (listChanged.length >= 2 ? true : undefined), 10_000);
    expect(listChanged.length).toBe(2);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('public-late-2');
    expect(tools).not.toContain('secret-late');
    const before = received().length;
    const answer = await client.callTool({ name: 'secret-late', arguments: {} });
    expect(JSON.stringify(answer)).toContain('Tool secret-late not found');
    await waitFor('the probe upstream', () => (received().length > before ? true : undefined));
    expect(JSON.stringify(received().slice(before))).not.toContain('secret');
  });

  it('relays an upstream sampling request and progress over stdio', async () => {
    const sampled = await client.callTool({ name: 'sample', arguments: {} });
    expect(JSON.stringify(sampled.content)).toContain('sampled: over stdio');
    const before = recorder.notifications('notifications/progress').length;
    await client.callTool({ name: 'slow-progress', arguments: {} }, undefined, { onprogress: () => undefined });
    // Read off the wire: the SDK client itself drops an update that arrives in one read with the
    // response (its progress handler runs a microtask late), which a loaded machine makes likely.
    const relayed = recorder.notifications('notifications/progress').slice(before);
    expect(relayed.map((notification) => notification.params?.['progress'])).toEqual([1, 2]);
  });
});

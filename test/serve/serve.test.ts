import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { runInRepository } from '../cli/memory-io.js';
import { connectClient, repositoryRoot, startServe, toolNames, waitFor, type RunningServe } from './harness.js';
import { useTemporaryDirectory } from './temporary-directory.js';

const cursor = { name: 'cursor-vscode', capabilities: { roots: {}, elicitation: {} } };

const running: RunningServe[] = [];
async function serve(argv: readonly string[], cwd?: string): Promise<RunningServe> {
  const serving = await startServe(argv, cwd);
  running.push(serving);
  return serving;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((serving) => serving.stop()));
});

const directory = useTemporaryDirectory();

describe('mcp-gate serve over HTTP', () => {
  it('serves the demo server on 127.0.0.1, each request seeing what explain says it sees', async () => {
    const serving = await serve(['--policy', 'policies/demo.json']);
    expect(serving.url.hostname).toBe('127.0.0.1');
    const plain = await connectClient(serving.url, cursor);
    const canary = await connectClient(serving.url, { ...cursor, headers: { 'x-canary': '1' } });
    const admin = await connectClient(serving.url, { ...cursor, path: '/mcp/admin' });
    expect(await toolNames(plain)).toEqual(['search', 'confirm_action']);
    expect(await toolNames(canary)).toEqual(['search', 'deploy_preview', 'confirm_action']);
    expect(await toolNames(admin)).toEqual(['search', 'confirm_action', 'admin_users', 'admin_flush_cache']);
    // Hidden ≡ unknown: the canary tool answers as a name never registered.
    expect((await plain.callTool({ name: 'deploy_preview', arguments: { branch: 'x' } })).content).toEqual([
      { type: 'text', text: 'MCP error -32602: Tool deploy_preview not found' },
    ]);
    expect((await canary.callTool({ name: 'deploy_preview', arguments: { branch: 'x' } })).content).toEqual([{ type: 'text', text: 'preview of x deployed' }]);

    const explained = await runInRepository(['explain', '--policy', 'policies/demo.json', '--server', 'src/demo/demo-server.ts', '--client', 'cursor', '--json']);
    const visibleTools = (JSON.parse(explained.stdout) as { primitives: { kind: string; name: string; visible: boolean }[] }).primitives
      .filter((primitive) => primitive.kind === 'tool' && primitive.visible)
      .map((primitive) => primitive.name);
    expect(await toolNames(plain)).toEqual(visibleTools);
    await Promise.all([plain.close(), canary.close(), admin.close()]);
    expect(serving.stderr()).toMatch(/^mcp-gate serve: policy policies\/demo\.json \(revision [0-9a-f]{16}\) in front of the demo server: 13 primitives\n/);
  });

  it('counts one primitive in the singular', async () => {
    const serving = await serve(['--policy', 'policies/demo.json', '--server', 'test/serve/fixtures/one-tool.js', '--stateless']);
    expect(serving.stderr()).toMatch(/in front of \S*one-tool\.js createServer\(\): 1 primitive\n/);
  });

  it('serves a server module with its metadata export, and --stateless serves without sessions', async () => {
    const serving = await serve(['--policy', 'policies/canary-by-header.json', '--server', 'test/cli/fixtures/server-module.js', '--stateless']);
    const client = await connectClient(serving.url);
    expect(await toolNames(client)).toEqual(['lookup']);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['draft']);
    await client.close();
    expect(serving.stderr()).toContain('stateless: one server per request');
  });

  it('--stateless hides capability-gated tools (no initialize, capabilities undeclared) unless --on-missing-capabilities allow', async () => {
    const denying = await serve(['--policy', 'policies/demo.json', '--stateless']);
    const allowing = await serve(['--policy', 'policies/demo.json', '--stateless', '--on-missing-capabilities', 'allow']);
    // The client declares elicitation in initialize, which a stateless server never keeps.
    const viaDenying = await connectClient(denying.url, cursor);
    const viaAllowing = await connectClient(allowing.url, cursor);
    expect(await toolNames(viaDenying)).toEqual(['search']);
    expect(await toolNames(viaAllowing)).toEqual(['search', 'summarize', 'confirm_action']);
    await Promise.all([viaDenying.close(), viaAllowing.close()]);
    expect(denying.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(stateless: one server per request; paths below \/mcp are endpoints too\)\n/);
    expect(allowing.stderr()).toMatch(
      /listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(stateless: one server per request; undeclared capabilities meet every requirement; paths below \/mcp are endpoints too\)\n/,
    );
  });

  it('refuses a Host header other than the loopback names (DNS rebinding) before building a server', async () => {
    const serving = await serve(['--policy', 'policies/demo.json']);
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
    });
    const post = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const outgoing = httpRequest(
          serving.url,
          { method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, timeout: 5_000 },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        outgoing.on('timeout', () => outgoing.destroy(new Error('no answer')));
        outgoing.on('error', reject);
        outgoing.end(initialize);
      });
    expect(await post(`attacker.example:${serving.url.port}`)).toEqual({
      status: 403,
      body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Host not allowed"},"id":null}',
    });
    expect((await post(`localhost:${serving.url.port}`)).status).toBe(200);
  });

  it('stops when its signal aborts: run resolves 0, says so, and the port is closed', async () => {
    const serving = await startServe(['--policy', 'policies/demo.json']);
    const client = await connectClient(serving.url, cursor);
    await toolNames(client);
    expect(await serving.stop()).toBe(0);
    expect(serving.stderr()).toMatch(/mcp-gate serve: stopped\n$/);
    await expect(fetch(serving.url, { method: 'POST', signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    await client.close().catch(() => undefined);
  });
});

describe('mcp-gate serve --watch', () => {
  const allowAll = { version: 1, default: 'allow', rules: [] };
  const hideCanary = {
    version: 1,
    default: 'allow',
    rules: [{ id: 'canary-needs-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } }],
  };

  it('swaps in a valid policy: connected clients get tools/list_changed and then see the new list', async () => {
    const policy = await directory.write('policy.json', allowAll);
    const serving = await serve(['--policy', policy, '--watch']);
    const client = await connectClient(serving.url, cursor);
    const changes: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void changes.push(notification.method));
    expect(await toolNames(client)).toContain('deploy_preview');
    const before = /revision ([0-9a-f]{16})/.exec(serving.stderr())![1]!;

    await directory.write('policy.json', hideCanary);
    await waitFor('tools/list_changed at the client', () => (changes.length > 0 ? true : undefined));
    expect(changes).toEqual(['notifications/tools/list_changed']);
    expect(await toolNames(client)).not.toContain('deploy_preview');
    expect(serving.stderr()).toMatch(new RegExp(`policy\\.json reloaded: revision ${before} → [0-9a-f]{16}\\n`));
    await client.close();
  });

  it('ignores a save that leaves the revision as it was (whitespace, key order)', async () => {
    const policy = await directory.write('policy.json', hideCanary);
    const serving = await serve(['--policy', policy, '--watch']);
    const client = await connectClient(serving.url, cursor);
    const changes: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void changes.push(notification.method));
    await toolNames(client);
    await directory.writeText('policy.json', JSON.stringify({ rules: hideCanary.rules, default: 'allow', version: 1 }));
    // Past the watcher's 100 ms debounce, so the two saves are handled one by one; once the real
    // change is in, the reformatted save before it has been handled too.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await directory.write('policy.json', allowAll);
    await waitFor('the real change', () => (changes.length > 0 ? true : undefined));
    expect(serving.stderr().match(/reloaded/g)).toHaveLength(1);
    expect(changes).toEqual(['notifications/tools/list_changed']);
    await client.close();
  });

  it('rejects an invalid policy, logs its problems, and keeps serving the old one', async () => {
    const policy = await directory.write('policy.json', hideCanary);
    const serving = await serve(['--policy', policy, '--watch']);
    const client = await connectClient(serving.url, cursor);
    const changes: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => void changes.push(notification.method));
    const served = await toolNames(client);
    expect(served).not.toContain('deploy_preview');

    await directory.writeText('policy.json', JSON.stringify({ ...allowAll, rules: [{ id: 'x', effect: 'allow', when: { startswith: [1, 2] } }] }));
    const stderr = await waitFor('the rejection on stderr', () => (/not valid/.test(serving.stderr()) ? serving.stderr() : undefined));
    const name = /mcp-gate serve: (\S*policy\.json) changed but is not valid/.exec(stderr)?.[1];
    expect(name).toBeDefined();
    expect(stderr).toContain(`${name}: rules[0].when.startswith: unknown operator "startswith" (did you mean "starts_with"?)\n`);
    expect(stderr).toMatch(/changed but is not valid; still serving revision [0-9a-f]{16}\n/);
    expect(await toolNames(client)).toEqual(served);

    // A file that is half written (not JSON yet) is rejected the same way; the next good write wins.
    await directory.writeText('policy.json', '{"version": 1, "default": "al');
    await waitFor('the second rejection', () => ((serving.stderr().match(/not valid/g)?.length ?? 0) >= 2 ? true : undefined));
    await directory.write('policy.json', allowAll);
    await waitFor('tools/list_changed after the good write', () => (changes.length > 0 ? true : undefined));
    expect(await toolNames(client)).toContain('deploy_preview');
    await client.close();
  });
  it('prints the problems of an invalid file once, however often the unchanged file is touched', async () => {
    const policy = await directory.write('policy.json', hideCanary);
    const serving = await serve(['--policy', policy, '--watch']);
    const invalid = JSON.stringify({ ...allowAll, rules: [{ id: 'x', effect: 'allow', when: { startswith: [1, 2] } }] });
    await directory.writeText('policy.json', invalid);
    await waitFor('the rejection on stderr', () => (/not valid/.test(serving.stderr()) ? true : undefined));
    // Saved again unchanged, past the watcher's 100 ms debounce each time: handled, and quiet.
    for (let touch = 0; touch < 2; touch++) {
      await directory.writeText('policy.json', invalid);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    // Events are handled in order: once this reload is in, the touches before it were handled.
    await directory.write('policy.json', allowAll);
    await waitFor('the reload after the touches', () => (/reloaded/.test(serving.stderr()) ? true : undefined));
    expect(serving.stderr().match(/not valid/g)).toHaveLength(1);
    expect(serving.stderr().match(/unknown operator "startswith"/g)).toHaveLength(1);

    // After a good file, the same invalid text is news again.
    await directory.writeText('policy.json', invalid);
    await waitFor('the second rejection', () => ((serving.stderr().match(/not valid/g)?.length ?? 0) >= 2 ? true : undefined));
  });
});

describe('mcp-gate serve --decision-log', () => {
  it('writes one JSON line per decision and keeps header values out unless allow-listed', async () => {
    const log = directory.path('decisions.jsonl');
    const serving = await serve(['--policy', 'policies/demo.json', '--decision-log', log, '--log-headers', 'x-canary']);
    const client = await connectClient(serving.url, { ...cursor, headers: { 'x-canary': '1', 'x-api-key': 'key-9a8b7c', 'x-tenant': 'tenant-secret' } });
    expect(await toolNames(client)).toContain('deploy_preview');
    await client.callTool({ name: 'deploy_preview', arguments: { branch: 'branch-with-secret' } });
    await client.callTool({ name: 'admin_users', arguments: {} });
    await client.close();
    await serving.stop();

    const text = await readFile(log, 'utf8');
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const revision = /revision ([0-9a-f]{16})/.exec(serving.stderr())![1];
    expect(lines.map((line) => [line['method'], (line['primitive'] as { name?: string } | undefined)?.name, line['allowed'], line['reason']])).toEqual([
      ['tools/list', undefined, true, 'list'],
      ['tools/call', 'deploy_preview', true, 'default'],
      ['tools/call', 'admin_users', false, 'requirement'],
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ policyRevision: revision, endpoint: '/mcp', client: 'cursor-vscode', headers: { 'x-canary': '1' } });
      expect(typeof line['time']).toBe('string');
      expect(line['requestId']).toEqual(expect.any(Number));
    }
    // Registrations: search@1, deploy_preview and confirm_action listed; search@2, insights, summarize and two admin tools not.
    expect(lines[0]).toMatchObject({ visible: 3, hidden: 5 });
    for (const secret of ['key-9a8b7c', 'tenant-secret', 'branch-with-secret', 'x-api-key', 'x-tenant']) expect(text).not.toContain(secret);
  });

  it('writes to stdout for -, and messages stay on stderr', async () => {
    const serving = await serve(['--policy', 'policies/demo.json', '--decision-log', '-']);
    const client = await connectClient(serving.url, cursor);
    await toolNames(client);
    await client.close();
    await waitFor('a decision on stdout', () => (serving.stdout().length > 0 ? true : undefined));
    expect(serving.stdout()).toMatch(
      /^\{"time":"[^"]+","requestId":\d+,"method":"tools\/list","allowed":true,"reason":"list","visible":2,"hidden":6,"policyRevision":"[0-9a-f]{16}","endpoint":"\/mcp","client":"cursor-vscode"\}\n$/,
    );
    expect(serving.stderr()).not.toContain('"method"');
  });
});

describe('mcp-gate serve command line', () => {
  it.each([
    [['serve'], 'mcp-gate serve: missing --policy FILE; see "mcp-gate serve --help"'],
    [['serve', '--policy', 'p.json', '--stdio', '--port', '1'], 'mcp-gate serve: pass either --port or --stdio, not both'],
    [['serve', '--policy', 'p.json', '--stdio', '--stateless'], 'mcp-gate serve: --stateless is for HTTP; stdio is one session'],
    [['serve', '--policy', 'p.json', '--port', '70000'], 'mcp-gate serve: --port must be a number from 0 to 65535, got "70000"'],
    [['serve', '--policy', 'p.json', '--port', 'http'], 'mcp-gate serve: --port must be a number from 0 to 65535, got "http"'],
    [['serve', '--policy', 'p.json', '--export', 'x'], 'mcp-gate serve: --export names an export of --server MODULE; pass --server too'],
    [
      ['serve', '--policy', 'p.json', '--stdio', '--decision-log', '-'],
      'mcp-gate serve: --decision-log - would write into the MCP stream on stdout; give a file with --stdio',
    ],
    [['serve', '--policy', 'p.json', '--log-headers', 'x-canary'], 'mcp-gate serve: --log-headers needs --decision-log'],
    [['serve', 'p.json'], 'mcp-gate serve: unexpected argument "p.json"; see "mcp-gate serve --help"'],
    [['serve', '--policy', 'p.json', '--on-missing-capabilities', 'hide'], 'mcp-gate serve: --on-missing-capabilities must be deny or allow, got "hide"'],
  ])('rejects %j (exit 2)', async (argv, message) => {
    expect(await runInRepository(argv)).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('reports every broken input before listening (exit 1)', async () => {
    const result = await runInRepository(['serve', '--policy', 'nope.json', '--server', 'test/cli/fixtures/two-factories.js']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'nope.json: no such file\ntest/cli/fixtures/two-factories.js: exports several server factories (createAdminServer, createPublicServer); pick one with --export NAME\n',
    });
  });

  it('names a port that is taken', async () => {
    const first = await serve(['--policy', 'policies/demo.json']);
    const port = first.url.port;
    const controller = new AbortController();
    const err: string[] = [];
    const code = await run(['serve', '--policy', 'policies/demo.json', '--port', port], {
      cwd: repositoryRoot,
      stdout: () => undefined,
      stderr: (text) => err.push(text),
      readFile: (path) => readFile(path, 'utf8'),
      signal: controller.signal,
    });
    expect(code).toBe(1);
    expect(err.at(-1)).toBe(`mcp-gate serve: port ${port} on 127.0.0.1 is in use; pick another with --port N (0 picks a free one)\n`);
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runInRepository } from '../cli/memory-io.js';
import { connectClient, startServe, waitFor, type RunningServe } from './harness.js';

const running: RunningServe[] = [];
async function serve(argv: readonly string[]): Promise<RunningServe> {
  const serving = await startServe(argv);
  running.push(serving);
  return serving;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((serving) => serving.stop()));
});

const cursor = { name: 'cursor-vscode', capabilities: { roots: {}, elicitation: {} } };
const credentials = { authorization: 'Bearer token-123', cookie: 'sid=abc', 'x-canary': '1' };

describe('mcp-gate serve --max-sessions and --session-idle-timeout', () => {
  it('says the bounds when listening (defaults: 1000 sessions, 300 s idle)', async () => {
    const defaults = await serve(['--policy', 'policies/demo.json']);
    expect(defaults.stderr()).toContain(
      `listening on ${defaults.url.href} (a session per client, at most 1000, closed after 300 s idle; paths below /mcp are endpoints too)\n`,
    );
    const set = await serve(['--policy', 'policies/demo.json', '--max-sessions', '7', '--session-idle-timeout', '0']);
    expect(set.stderr()).toContain(`listening on ${set.url.href} (a session per client, at most 7, no idle timeout; paths below /mcp are endpoints too)\n`);
  });

  it('closes the least recently used session beyond --max-sessions; its client gets 404 and initializes again', async () => {
    const serving = await serve(['--policy', 'policies/demo.json', '--max-sessions', '1']);
    const first = await connectClient(serving.url, cursor);
    await first.listTools();
    const second = await connectClient(serving.url, cursor);
    await second.listTools();
    const failure = await first.listTools().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(404);
    await first.close();
    const again = new Client({ name: 'cursor-vscode', version: '1.0.0' }, { capabilities: cursor.capabilities });
    await again.connect(new StreamableHTTPClientTransport(serving.url));
    expect((await again.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'confirm_action']);
    await again.close();
    await second.close();
  });

  it.each([
    [['--max-sessions', '0'], 'mcp-gate serve: --max-sessions must be a whole number from 1 to 1000000, got "0"'],
    [['--max-sessions', '1e3'], 'mcp-gate serve: --max-sessions must be a whole number from 1 to 1000000, got "1e3"'],
    [['--session-idle-timeout', '-1'], 'mcp-gate serve: --session-idle-timeout must be a whole number from 0 to 86400, got "-1"'],
    [['--session-idle-timeout', '5m'], 'mcp-gate serve: --session-idle-timeout must be a whole number from 0 to 86400, got "5m"'],
    [['--max-sessions', '10', '--stateless'], 'mcp-gate serve: --max-sessions is for HTTP sessions; --stateless has none'],
    [['--session-idle-timeout', '10', '--stdio'], 'mcp-gate serve: --session-idle-timeout is for HTTP sessions; stdio is one session'],
    [['--decision-log', '-', '--log-credential-headers'], 'mcp-gate serve: --log-credential-headers needs --log-headers naming the credential headers to log'],
  ])('rejects %j (exit 2)', async (argv, message) => {
    expect(await runInRepository(['serve', '--policy', 'policies/demo.json', ...argv])).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });
});

describe('mcp-gate serve --log-headers with credential headers', () => {
  async function loggedHeaders(argv: readonly string[]): Promise<{ stderr: string; headers: unknown }> {
    const serving = await serve(['--policy', 'policies/demo.json', '--decision-log', '-', ...argv]);
    const client = await connectClient(serving.url, { ...cursor, headers: credentials });
    await client.listTools();
    await client.close();
    const line = await waitFor('a decision on stdout', () => (serving.stdout().includes('\n') ? serving.stdout().split('\n')[0]! : undefined));
    return { stderr: serving.stderr(), headers: (JSON.parse(line) as { headers?: unknown }).headers };
  }

  it('logs them as "[redacted]" and says so at startup', async () => {
    const { stderr, headers } = await loggedHeaders(['--log-headers', 'Authorization,Cookie', '--log-headers', 'x-canary']);
    expect(headers).toEqual({ authorization: '[redacted]', cookie: '[redacted]', 'x-canary': '1' });
    expect(stderr).toContain(
      'mcp-gate serve: --log-headers authorization, cookie: credential headers are logged as "[redacted]"; --log-credential-headers would write their values\n',
    );
    expect(stderr).not.toContain('token-123');
  });

  it('logs their values only with --log-credential-headers, with a warning on stderr', async () => {
    const { stderr, headers } = await loggedHeaders(['--log-headers', 'authorization,cookie,x-canary', '--log-credential-headers']);
    expect(headers).toEqual(credentials);
    expect(stderr).toContain(
      'mcp-gate serve: WARNING: --log-credential-headers writes the values of authorization, cookie (bearer tokens, cookies, keys) to the decision log in clear text; whoever can read the log can use them\n',
    );
  });

  it('says nothing about credentials when none is allow-listed', async () => {
    const { stderr, headers } = await loggedHeaders(['--log-headers', 'x-canary']);
    expect(headers).toEqual({ 'x-canary': '1' });
    expect(stderr).not.toMatch(/credential|redacted/);
  });
});

describe('mcp-gate serve --decision-log, hidden ≡ unknown', () => {
  it('answers a hidden tool and an unknown name alike; only the hidden one is a decision, logged off the response path', async () => {
    const serving = await serve(['--policy', 'policies/demo.json', '--decision-log', '-']);
    const client = await connectClient(serving.url, cursor);
    // deploy_preview is hidden without x-canary; the other two names were never registered (same length).
    const answers = [];
    for (const name of ['deploy_preview', 'deploy_previex', 'deploy_reviews']) {
      const result = await client.callTool({ name, arguments: { branch: 'x' } });
      answers.push(JSON.stringify(result).replace(name, 'NAME'));
    }
    expect(answers[0]).toBe('{"content":[{"type":"text","text":"MCP error -32602: Tool NAME not found"}],"isError":true}');
    expect(new Set(answers).size).toBe(1);
    await client.close();
    await waitFor('the decision on stdout', () => (serving.stdout().includes('deploy_preview') ? true : undefined));
    const lines = serving
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { method: string; primitive?: { name: string }; allowed: boolean });
    expect(lines.filter((line) => line.method === 'tools/call').map((line) => [line.primitive?.name, line.allowed])).toEqual([['deploy_preview', false]]);
  });
});

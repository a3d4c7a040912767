import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { repositoryRoot, waitFor } from './harness.js';
import { useTemporaryDirectory } from './temporary-directory.js';

// The bin as a user runs it: a separate process, from the build (dist/, built once per run).
const bin = [builtBin];
beforeAll(async () => expect(await buildDistOnce(), 'npm run build --noCheck').toBe(''), 180_000);
const directory = useTemporaryDirectory();

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function spawnBin(args: readonly string[]): { child: ChildProcess; stderr: () => string; stdout: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...bin, ...args], { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))]);
}

describe('mcp-gate serve --stdio (a spawned process)', () => {
  it('serves a real SDK client over stdin/stdout with endpoint "" and logs decisions to a file', async () => {
    const log = directory.path('decisions.jsonl');
    const client = new Client({ name: 'stdio-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...bin, 'serve', '--stdio', '--policy', 'policies/demo.json', '--decision-log', log],
      cwd: repositoryRoot,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await withTimeout(client.connect(transport), 15_000, 'connect over stdio').catch((error: unknown) => {
      throw new Error(`${String(error)}; the server said:\n${stderr}`);
    });
    // No headers and endpoint "" over stdio: no canary, no admin endpoint; sampling shows summarize, no elicitation hides confirm_action.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'summarize']);
    await client.close();
    await waitFor('"stopped" on stderr', () => (stderr.includes('mcp-gate serve: stopped') ? true : undefined), 10_000);
    expect(stderr).toContain('mcp-gate serve: speaking MCP on stdin/stdout\n');
    const [record] = (await readFile(log, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(record).toMatchObject({ method: 'tools/list', reason: 'list', endpoint: '', client: 'stdio-test' });
  });

  it('exits 0 by itself when the client closes stdin', async () => {
    const serving = spawnBin(['serve', '--stdio', '--policy', 'policies/demo.json']);
    await waitFor('the server to start', () => (serving.stderr().includes('speaking MCP') ? true : undefined), 15_000);
    serving.child.stdin!.end();
    expect(await withTimeout(serving.exited, 10_000, 'exit after stdin closed')).toBe(0);
    expect(serving.stderr()).toMatch(/mcp-gate serve: stopped\n$/);
    expect(serving.stdout()).toBe('');
  });
});

describe('mcp-gate serve over HTTP (a spawned process)', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s with exit code 0', async (signal) => {
    const serving = spawnBin(['serve', '--port', '0', '--policy', 'policies/demo.json', '--watch']);
    const url = await waitFor('"listening on"', () => /listening on (\S+)/.exec(serving.stderr())?.[1], 15_000);
    const response = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(5_000) });
    // A GET without a session is refused by the SDK's transport: the server answers, it is up.
    expect(response.status).toBeGreaterThanOrEqual(400);
    serving.child.kill(signal);
    expect(await withTimeout(serving.exited, 10_000, `exit after ${signal}`)).toBe(0);
    expect(serving.stderr()).toMatch(/mcp-gate serve: stopped\n$/);
  });
});

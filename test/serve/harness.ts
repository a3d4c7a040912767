import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { run } from '../../src/cli/run.js';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Polls until `check` returns a value, or fails after `timeoutMs` saying what it waited for. */
export async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RunningServe {
  readonly url: URL;
  /** Everything written to stderr so far. */
  stderr(): string;
  stdout(): string;
  /** Aborts as SIGINT would and resolves with the exit code `run` returned. */
  stop(): Promise<number>;
}

/** The URL `serve` or `proxy` prints once it listens, from its stderr so far. */
export function listeningUrlIn(stderr: string): URL | undefined {
  const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
  return match ? new URL(match[1]!) : undefined;
}

/** `mcp-gate serve …` through `run`, with an abort signal standing in for SIGINT; resolves once listening. */
export function startServe(argv: readonly string[], cwd = repositoryRoot): Promise<RunningServe> {
  return startListening('serve', argv, cwd);
}

/** `mcp-gate <command> --port 0 …` (serve or proxy) through `run`; resolves once it listens, within `timeoutMs`. */
export async function startListening(command: 'serve' | 'proxy', argv: readonly string[], cwd: string, timeoutMs = 5_000): Promise<RunningServe> {
  const out: string[] = [];
  const err: string[] = [];
  const controller = new AbortController();
  const finished = run([command, '--port', '0', ...argv], {
    cwd,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
    signal: controller.signal,
  });
  let code: number | undefined;
  void finished.then((value) => (code = value));
  const url = await waitFor(
    '"listening on" on stderr',
    () => {
      if (code !== undefined) throw new Error(`${command} exited ${code} before listening:\n${err.join('')}`);
      return listeningUrlIn(err.join(''));
    },
    timeoutMs,
  );
  return {
    url,
    stderr: () => err.join(''),
    stdout: () => out.join(''),
    async stop() {
      controller.abort();
      return finished;
    },
  };
}

export interface CallerOptions {
  readonly name?: string;
  readonly capabilities?: ClientCapabilities;
  readonly headers?: Record<string, string>;
  readonly path?: string;
}

/** A real SDK Client over Streamable HTTP, as a product with these capabilities and headers would connect. */
export async function connectClient(base: URL, options: CallerOptions = {}): Promise<Client> {
  const client = new Client({ name: options.name ?? 'test-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  const url = new URL(options.path ?? base.pathname, base);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: options.headers ?? {} } }));
  return client;
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

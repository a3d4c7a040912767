// What the 2026-07-28-over-stdio tests share: the fixture upstream's command, raw JSON-RPC lines
// over a stdio pair (to compare answers byte for byte and send each message its own envelope),
// and `mcp-gate proxy --stdio` run in process over a pair of streams.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { run } from '../../src/cli/run.js';
import { repositoryRoot, waitFor } from './harness.js';

export const fixtureScript = 'test/proxy/fixtures/stdio-2026-upstream.mjs';
/** The fixture as --upstream-cmd: a 2026-07-28 server on `serveStdio`, both eras unless `--modern-only`. */
export const upstreamCommand = (...flags: string[]) => [process.execPath, fixtureScript, ...flags].join(' ');

/** The `_meta` envelope of a 2026-07-28 request from the client `name`. */
export function envelope(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** JSON-RPC as lines on a stdio pair: each request's answer as the exact line that came back, and the notifications seen. */
export class RawLines {
  readonly lines: string[] = [];
  #partial = '';
  readonly #input: Writable;

  constructor(input: Writable, output: Readable) {
    this.#input = input;
    output.on('data', (chunk: Buffer) => {
      const lines = (this.#partial + chunk.toString('utf8')).split('\n');
      this.#partial = lines.pop() ?? '';
      this.lines.push(...lines.filter((line) => line !== ''));
    });
  }

  /** Sends a request without waiting for its answer. */
  send(id: number | string, method: string, params: Record<string, unknown>): void {
    this.#input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  }

  /** Sends a request and resolves with the line that answers it (its id), within 10 s. */
  async request(id: number | string, method: string, params: Record<string, unknown>): Promise<string> {
    this.send(id, method, params);
    return waitFor(`the answer to ${method} (id ${id})`, () => this.lines.find((line) => answers(line, id)), 10_000);
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.#input.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }
}

function answers(line: string, id: number | string): boolean {
  const message = JSON.parse(line) as { id?: unknown; result?: unknown; error?: unknown };
  return message.id === id && ('result' in message || 'error' in message);
}

/** The fixture spawned directly (no proxy): the reference answers. */
export function spawnFixture(...flags: string[]): { process: ChildProcess; lines: RawLines } {
  const child = spawn(process.execPath, [fixtureScript, ...flags], { cwd: repositoryRoot, stdio: ['pipe', 'pipe', 'ignore'] });
  return { process: child, lines: new RawLines(child.stdin!, child.stdout!) };
}

export interface StdioProxy {
  /** What the client writes (the proxy's stdin) and reads (its stdout). */
  readonly input: PassThrough;
  readonly output: PassThrough;
  stderr(): string;
  /** What the upstream processes received (their "received" lines, which the proxy passes on to its stderr). */
  upstreamReceived(): string[];
  stop(): Promise<number>;
}

/** `mcp-gate proxy --stdio …` through `run`, over two streams; resolves once it speaks MCP. */
export async function startStdioProxy(argv: readonly string[]): Promise<StdioProxy> {
  const input = new PassThrough();
  const output = new PassThrough();
  const err: string[] = [];
  const controller = new AbortController();
  let code: number | undefined;
  const finished = run(['proxy', '--stdio', ...argv], {
    cwd: repositoryRoot,
    stdout: () => undefined,
    stderr: (text) => err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
    signal: controller.signal,
    stdio: { input, output },
  });
  void finished.then((value) => (code = value));
  await waitFor(
    'proxy --stdio to start',
    () => {
      if (code !== undefined) throw new Error(`proxy --stdio exited ${code}:\n${err.join('')}`);
      return err.join('').includes('speaking MCP on stdin/stdout') || undefined;
    },
    20_000,
  );
  return {
    input,
    output,
    stderr: () => err.join(''),
    upstreamReceived: () => [...err.join('').matchAll(/upstream: received (.*)\n/g)].map((match) => match[1]!),
    async stop() {
      input.end();
      controller.abort();
      return finished;
    },
  };
}

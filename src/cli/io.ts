import { isAbsolute, relative, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** Everything `run` touches outside itself, so tests drive the CLI in memory. */
export interface CliIo {
  /** Receives whole lines, each ending in "\n". */
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Reads a UTF-8 file by absolute path; rejects with a Node-style error (`code: 'ENOENT'`) when it cannot. */
  readonly readFile: (path: string) => Promise<string>;
  /** Directory that relative paths on the command line are resolved against. */
  readonly cwd: string;
  /** Loads an ES module by `file:` URL (`--server`); default `import()`. */
  readonly importModule?: (url: string) => Promise<Record<string, unknown>>;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM); `serve` runs until then. */
  readonly signal?: AbortSignal;
  /** The environment `${VAR}` in option values reads (`--upstream-header`); default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The process's byte streams, which `serve --stdio` speaks MCP over; default process.stdin/stdout. */
  readonly stdio?: { readonly input: Readable; readonly output: Writable };
}

/** A mistake on the command line (unknown option, missing argument): exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A problem with an input file or value the user gave: reported as one line, exit code 1. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Exit codes shared by every command. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

export function resolvePath(io: CliIo, path: string): string {
  return isAbsolute(path) ? path : resolve(io.cwd, path);
}

/** How a file is named in messages: as the user typed it when relative to cwd, else absolute. */
export function displayPath(io: CliIo, absolutePath: string): string {
  const fromCwd = relative(io.cwd, absolutePath);
  return fromCwd.startsWith('..') || isAbsolute(fromCwd) ? absolutePath : fromCwd;
}

export async function readText(io: CliIo, absolutePath: string): Promise<string> {
  try {
    return await io.readFile(absolutePath);
  } catch (error) {
    throw new InputError(`${displayPath(io, absolutePath)}: ${describeReadError(error)}`);
  }
}

function describeReadError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory, not a file';
  if (code === 'EACCES') return 'permission denied';
  return `cannot read: ${error instanceof Error ? error.message : String(error)}`;
}

/** Parses JSON, turning V8's "at position N" into `file:line:column: invalid JSON: …`. */
export function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    const { line, column } = lineAndColumn(text, offset);
    // V8's wording differs between Node versions; keep its reason, drop its location.
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)$/, '');
    throw new InputError(`${name}:${line}:${column}: invalid JSON: ${reason}`);
  }
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text[index] === '\n') {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export async function readJson(io: CliIo, absolutePath: string): Promise<unknown> {
  // Some Windows editors save a byte-order mark, which JSON.parse rejects.
  const text = (await readText(io, absolutePath)).replace(/^\uFEFF/, '');
  return parseJson(text, displayPath(io, absolutePath));
}

/** Compiler-style lines: `file: path: message` (`file: message` for the whole document). */
export function formatIssues(name: string, issues: readonly { path: string; message: string }[]): string {
  return issues.map((issue) => (issue.path ? `${name}: ${issue.path}: ${issue.message}` : `${name}: ${issue.message}`)).join('\n');
}

/** Awaits every load so one run reports the problems of all inputs, not just the first file's. */
export async function loadAll<T extends readonly unknown[]>(...loads: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(loads);
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  const notInput = failures.find((reason) => !(reason instanceof InputError));
  if (notInput !== undefined) throw notInput;
  if (failures.length > 0) throw new InputError(failures.map((reason) => (reason as InputError).message).join('\n'));
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

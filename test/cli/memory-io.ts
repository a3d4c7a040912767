import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, type CliIo } from '../../src/cli/run.js';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** An in-memory io: files by path relative to `/project` (the cwd); anything else is ENOENT. */
export function createMemoryIo(files: Record<string, string>, cwd = '/project'): CliIo & { out: string[]; err: string[] } {
  const byPath = new Map(Object.entries(files).map(([path, text]) => [resolve(cwd, path), text]));
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    cwd,
    env: {},
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: async (path) => {
      const text = byPath.get(path);
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      return text;
    },
  };
}

/** Runs the CLI over in-memory files. */
export async function runWith(argv: readonly string[], files: Record<string, string> = {}): Promise<CliResult> {
  const io = createMemoryIo(files);
  const code = await run(argv, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

/** Runs the CLI over the real repository (its shipped policies), still without touching process.* (an empty environment unless given). */
export async function runInRepository(argv: readonly string[], env: CliIo['env'] = {}): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    cwd: repositoryRoot,
    env,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

export const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

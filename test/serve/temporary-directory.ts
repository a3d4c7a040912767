import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export interface TemporaryDirectory {
  path(name: string): string;
  /** Writes JSON the way editors save: a new file renamed over the old one. Returns the absolute path. */
  write(name: string, value: unknown): Promise<string>;
  writeText(name: string, text: string): Promise<string>;
}

/** A fresh directory for each test, removed after it. */
export function useTemporaryDirectory(): TemporaryDirectory {
  let directory = '';
  let writes = 0;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcp-gate-serve-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });
  const writeText = async (name: string, text: string) => {
    const target = join(directory, name);
    const temporary = join(directory, `.${name}.${++writes}.tmp`);
    await writeFile(temporary, text);
    await rename(temporary, target);
    return target;
  };
  return {
    path: (name) => join(directory, name),
    write: (name, value) => writeText(name, `${JSON.stringify(value, null, 2)}\n`),
    writeText,
  };
}

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!);
}

describe('module boundaries', () => {
  it('keeps src/core pure: no node:*, no MCP SDK, no I/O modules', () => {
    const offenders = sourceFiles(join(root, 'src/core')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('node:') || specifier.startsWith('@modelcontextprotocol/') || ['fs', 'path', 'crypto', 'http'].includes(specifier))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('uses no eval or new Function anywhere in src', () => {
    const offenders = sourceFiles(join(root, 'src')).filter((file) => /\beval\s*\(|new\s+Function\s*\(/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('finds the files it checks (the scan cannot silently cover nothing)', () => {
    expect(sourceFiles(join(root, 'src/core')).length).toBeGreaterThan(15);
  });
});

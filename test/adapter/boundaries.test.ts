import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const adapterDir = new URL('../../src/adapter/', import.meta.url).pathname;
const sourceDir = new URL('../../src/', import.meta.url).pathname;

describe('src/adapter boundaries', () => {
  it('imports no MCP SDK and nothing from the SDK-specific adapters, so the v2 adapter can reuse it', () => {
    const offending: string[] = [];
    for (const file of readdirSync(adapterDir, { recursive: true })
      .map(String)
      .filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join(adapterDir, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (/^@modelcontextprotocol\//.test(specifier!) || /\/(sdk|server)\//.test(specifier!) || specifier!.startsWith('node:')) {
          offending.push(`${file}: ${specifier}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('keys decisions with policy.contextKeyFor in every adapter, never policy.contextKey (all headers once requirements are enforced)', () => {
    const offending: string[] = [];
    let scanned = 0;
    for (const folder of ['adapter', 'sdk', 'server']) {
      for (const file of readdirSync(join(sourceDir, folder), { recursive: true })
        .map(String)
        .filter((name) => name.endsWith('.ts'))) {
        scanned++;
        if (/\.contextKey\s*\(/.test(readFileSync(join(sourceDir, folder, file), 'utf8'))) offending.push(`${folder}/${file}`);
      }
    }
    expect(scanned).toBeGreaterThan(20);
    expect(offending).toEqual([]);
  });
});

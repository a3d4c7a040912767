import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const adapterDir = new URL('../../src/adapter/', import.meta.url).pathname;

describe('src/adapter boundaries', () => {
  it('imports no MCP SDK and nothing from the SDK-specific adapters, so the v2 adapter can reuse it', () => {
    const offending: string[] = [];
    for (const file of readdirSync(adapterDir, { recursive: true }).map(String).filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join(adapterDir, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (/^@modelcontextprotocol\//.test(specifier!) || /\/(sdk|server)\//.test(specifier!) || specifier!.startsWith('node:')) {
          offending.push(`${file}: ${specifier}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });
});

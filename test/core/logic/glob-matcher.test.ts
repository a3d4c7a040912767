import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/core/logic/glob-matcher.js';

describe('compileGlob', () => {
  it.each([
    ['/mcp/admin', '/mcp/admin', true],
    ['/mcp/admin', '/mcp/admin/', false],
    ['/mcp/*', '/mcp/admin', true],
    ['/mcp/*', '/mcp/admin/users', false],
    ['/mcp/**', '/mcp/admin/users', true],
    ['/mcp/**', '/mcp', false],
    ['**', '', true],
    ['admin_*', 'admin_', true],
    ['*_v?', 'search_v2', true],
    ['*_v?', 'search_v/', false],
    ['a**b', 'a/x/y/b', true],
    ['file:///ws/**', 'file:///ws/notes/a.md', true],
    ['*.md', 'notes.md', true],
  ])('%s matches %s: %s', (pattern, value, expected) => {
    expect(compileGlob(pattern)(value)).toBe(expected);
  });

  it('matches a hostile pattern against a long input in linear passes (no backtracking blow-up)', () => {
    const pattern = `${'*a'.repeat(40)}b`;
    const input = 'a'.repeat(20_000);
    expect(compileGlob(pattern)(input)).toBe(false);
    expect(compileGlob(pattern)(`${input}b`)).toBe(true);
  });
});

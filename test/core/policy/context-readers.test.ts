import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../../src/core/context.js';
import { createPrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { compileContextReader, contextFieldOf } from '../../../src/core/policy/context-readers.js';
import { contextShape, type PathShape } from '../../../src/core/policy/context-shape.js';

// readContextField's switch and its field list are kept in step by hand: every field of the
// context's shape must have a case, and each case must read its own field, not a neighbour's.

/** The path of every field in a shape (records are walked; lists, strings and free-form maps are fields). */
function fieldPaths(shape: PathShape, at: string[]): string[][] {
  if (shape.kind !== 'record') return [at];
  return [at, ...Object.entries(shape.fields).flatMap(([name, field]) => fieldPaths(field, [...at, name]))];
}

/** Every field set, each to a value no other field has. */
const context = createRequestContext({
  request: { method: 'tools/call', headers: { 'x-a': '1' }, endpoint: '/mcp', sessionId: 'session', protocolVersion: '2025-11-25' },
  client: { name: 'client', version: '1.0.0', capabilities: { sampling: {} } },
  auth: { clientId: 'client-id', subject: 'subject', issuer: 'https://issuer', scopes: ['scope'], claims: { org: 'x' } },
});
const primitive = createPrimitiveMetadata(
  'resourceTemplate',
  'name',
  { version: '2.0.0', groups: ['g'], tags: ['t'], requires: { capabilities: ['roots'], headers: { 'x-b': '2' } }, endpoints: ['/e'] },
  { uri: 'file:///r', uriTemplate: 'file:///{name}' },
);

function walk(value: unknown, segments: readonly string[]): unknown {
  return segments.reduce<unknown>((at, segment) => (at as Record<string, unknown> | undefined)?.[segment], value);
}

const paths = ['request', 'client', 'auth', 'primitive'].flatMap((root) => fieldPaths(contextShape[root]!, [root]));

describe('readContextField', () => {
  it.each(paths.map((path) => [path.join('.'), path]))('has a case for %s that reads that field', (_name, path) => {
    const [root, ...rest] = path as string[];
    const expected = root === 'primitive' ? walk(primitive, rest) : walk(context[root as 'auth'], rest);
    expect(expected).toBeDefined();
    expect(contextFieldOf(path as string[])).toBeDefined();
    expect(compileContextReader(path as string[])(context, primitive)).toBe(expected);
  });

  it('reads a header by name, and below a field through the field', () => {
    expect(compileContextReader(['request', 'headers', 'x-a'])(context, primitive)).toBe('1');
    expect(compileContextReader(['auth', 'issuer', 'length'])(context, primitive)).toBe('https://issuer'.length);
    expect(compileContextReader(['auth', 'claims', 'org'])(context, primitive)).toBe('x');
  });
});

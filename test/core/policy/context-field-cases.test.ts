import { describe, expect, it } from 'vitest';
import { contextShape, type PathShape } from '../../../src/core/policy/context-shape.js';
import { compileContextReader, contextFieldOf, fieldCases as findCases } from '../../../src/core/policy/context-readers.js';
import { createRequestContext } from '../../../src/core/context.js';

// readContextField's switch is the one table of context fields: the path each case reads is
// found by running it on a sample (context-readers.ts). These tests keep that finding honest.

function fieldPaths(shape: PathShape, at: string): string[] {
  if (shape.kind !== 'record') return [at];
  return [at, ...Object.entries(shape.fields).flatMap(([name, field]) => fieldPaths(field, `${at}.${name}`))];
}

const fieldCases = findCases();
const shapePaths = ['request', 'client', 'auth', 'primitive'].flatMap((root) => fieldPaths(contextShape[root]!, root));

describe('fieldCases', () => {
  it('names a field of the context shape for every case of the switch', () => {
    expect(fieldCases.filter(({ path }) => path === undefined || !shapePaths.includes(path))).toEqual([]);
  });

  it('has one case per field, and a case for every field of the shape', () => {
    const paths = fieldCases.map(({ path }) => path);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual([...shapePaths].sort());
  });

  it('numbers the cases densely from 0, leaving out only the header case', () => {
    const numbers = fieldCases.map(({ field }) => field);
    expect(numbers).toEqual(numbers.map((_, index) => (index < 28 ? index : index + 1)));
    expect(contextFieldOf(['request', 'headers', 'x-a'])).toMatchObject({ field: 28, key: 'x-a' });
  });

  it('gives the field reads the cases it found', () => {
    const context = createRequestContext({ auth: { issuer: 'https://issuer', subject: 'alice' } });
    for (const { field, path } of fieldCases) expect(contextFieldOf(path!.split('.'))?.field).toBe(field);
    expect(compileContextReader(['auth', 'issuer'])(context, undefined)).toBe('https://issuer');
    expect(compileContextReader(['auth', 'subject'])(context, undefined)).toBe('alice');
  });
});

import { describe, expect, it } from 'vitest';
import { PolicyCompileError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { countReads, nest, withWhen } from './counting.js';

// Each hostile document is compiled through read-counting proxies: the work done must stop at
// the compiler's limits (the same count for 10,000 levels as for 65), never grow with the input
// past them, and the error must stay small whatever the size of the input.

interface Attempt {
  reads: number;
  error: PolicyCompileError;
}

function compileCounting(document: unknown): Attempt {
  const counted = countReads(document);
  try {
    compilePolicy(counted.value);
  } catch (error) {
    if (error instanceof PolicyCompileError) return { reads: counted.reads(), error };
    throw error;
  }
  throw new Error('the hostile document compiled');
}

const issueCodes = (attempt: Attempt) => attempt.error.issues.map((issue) => issue.code);
const MB = 1024 * 1024;

describe('compilePolicy (hostile sizes)', () => {
  it.each([
    ['"!" operations', (inner: unknown) => ({ '!': inner })],
    ['arrays', (inner: unknown) => [inner]],
    ['object literals', (inner: unknown) => ({ a: inner, b: 1 })],
    ['"and" of one', (inner: unknown) => ({ and: [inner, true] })],
  ])('stops 10,000 levels of nested %s at the depth limit, with the work of 65 levels', (_label, wrap) => {
    const shallow = compileCounting(withWhen(nest(65, wrap)));
    const deep = compileCounting(withWhen(nest(10_000, wrap)));
    expect(deep.reads).toBe(shallow.reads);
    expect(issueCodes(deep)).toContain('limit_exceeded');
    expect(deep.error.message).toContain('rule is nested deeper than 64 levels');
    expect(deep.error.message.length).toBeLessThan(2_000);
  });

  it.each([
    ['an "in" list', (items: number[]) => ({ in: ['x', items] })],
    ['a "merge"', (items: number[]) => ({ merge: items })],
    ['an object literal', (items: number[]) => ({ a: items, b: 1 })],
  ])('stops a 100,000-element array in %s at the node limit, with the work of 10,001', (_label, build) => {
    const atLimit = compileCounting(withWhen(build(Array.from({ length: 10_001 }, (_, index) => index))));
    const huge = compileCounting(withWhen(build(Array.from({ length: 100_000 }, (_, index) => index))));
    expect(huge.reads).toBe(atLimit.reads);
    expect(huge.error.issues).toEqual([expect.objectContaining({ code: 'limit_exceeded', message: 'rule has more than 10000 nodes' })]);
  });

  it.each([
    ['appliesTo.names', (items: string[]) => ({ names: items }), 'rules[0].appliesTo.names'],
    ['appliesTo.groups', (items: string[]) => ({ groups: items }), 'rules[0].appliesTo.groups'],
    ['appliesTo.kinds', (items: string[]) => ({ kinds: items.map(() => 'tool') }), 'rules[0].appliesTo.kinds'],
  ])('rejects 100,000 entries in %s with one issue and bounded work', (_label, build, path) => {
    const items = Array.from({ length: 100_000 }, () => 'x');
    const attempt = compileCounting({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', appliesTo: build(items) }] });
    expect(attempt.error.issues).toEqual([expect.objectContaining({ code: 'invalid_document', path })]);
    expect(attempt.reads).toBeLessThan(1_000);
  });

  it('rejects 100,000 rules with one issue, reading each rule a bounded number of times', () => {
    const rules = Array.from({ length: 100_000 }, (_, index) => ({ id: `r${index}`, effect: 'allow' }));
    const attempt = compileCounting({ version: 1, default: 'deny', rules });
    expect(attempt.error.issues).toEqual([{ code: 'invalid_document', path: 'rules', message: 'Too big: expected array to have <=10000 items' }]);
    // The schema validates every rule before it checks the count: linear, a few reads per rule.
    expect(attempt.reads).toBeLessThan(5 * rules.length);
  });

  it.each([
    ['a rule literal', (big: string) => withWhen({ '==': [{ var: 'client.name' }, big] }), 'rules[0].when["=="][1]', 'limit_exceeded'],
    ['a rule id', (big: string) => ({ version: 1, default: 'deny', rules: [{ id: big, effect: 'allow' }] }), 'rules[0].id', 'invalid_document'],
    ['a description', (big: string) => ({ version: 1, default: 'deny', description: big }), 'description', 'invalid_document'],
    ['$schema', (big: string) => ({ version: 1, default: 'deny', $schema: big }), '$schema', 'invalid_document'],
    [
      'a name glob',
      (big: string) => ({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', appliesTo: { names: [big] } }] }),
      'rules[0].appliesTo.names[0]',
      'invalid_document',
    ],
    ['an operator name', (big: string) => withWhen({ [big]: [] }), undefined, 'unknown_operator'],
  ])('rejects a 5 MB string in %s without echoing it', (_label, build, path, code) => {
    const attempt = compileCounting(build('x'.repeat(5 * MB)));
    expect(attempt.error.issues).toHaveLength(1);
    expect(attempt.error.issues[0]!.code).toBe(code);
    if (path !== undefined) expect(attempt.error.issues[0]!.path).toBe(path);
    expect(attempt.error.issues[0]!.message.length).toBeLessThan(200);
  });

  // Regression (fixed in 0216907): issue paths repeated object keys unabridged, so one long key
  // was copied into every issue below it — a 100 kB key over 200 bad literals gave a 20 MB error.
  it('keeps the error small when a long key sits above many issues (amplification)', () => {
    const key = 'k'.repeat(100_000);
    const attempt = compileCounting(withWhen({ a: 1, [key]: Array.from({ length: 200 }, () => Number.NaN) }));
    expect(attempt.error.issues).toHaveLength(200);
    expect(attempt.error.message.length).toBeLessThan(key.length + 200 * 200);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('rejects the non-finite number %s in a rule, at its path', (value) => {
    const attempt = compileCounting(withWhen({ '<': [{ var: 'client.version' }, value] }));
    expect(attempt.error.issues).toEqual([{ code: 'invalid_argument', path: 'rules[0].when["<"][1]', message: `number ${value} is not finite` }]);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('rejects the non-finite version %s', (value) => {
    expect(compileCounting({ version: value, default: 'deny' }).error.issues).toEqual([expect.objectContaining({ code: 'invalid_document', path: 'version' })]);
  });
});

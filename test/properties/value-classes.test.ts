import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringClasses, type StringTest } from '../../src/core/analysis/string-classes.js';
import { valueClasses } from '../../src/core/analysis/value-classes.js';
import type { Atom } from '../../src/core/analysis/condition-atoms.js';
import { compileGlob } from '../../src/core/logic/glob-matcher.js';
import { compareToVersion, parseSemVer, versionComparison } from '../../src/core/logic/semver.js';
import { propertyParameters } from './seed.js';

// Exactness of the classes, checked directly: every string (every version) of a brute-force
// domain answers the tests like one of the representatives does.

/** How a test answers a string (a glob compiled once per test, not once per string of the domain). */
function answerer(test: StringTest): (value: string) => boolean {
  switch (test.op) {
    case 'nonempty':
      return (value) => value !== '';
    case 'eq':
      return (value) => value === test.value;
    case 'prefix':
      return (value) => value.startsWith(test.value);
    case 'suffix':
      return (value) => value.endsWith(test.value);
    case 'contains':
      return (value) => value.includes(test.value);
    case 'glob':
      return compileGlob(test.value);
  }
}

/** Every string over `alphabet` up to `length` characters. */
function allStrings(alphabet: readonly string[], length: number): string[] {
  const out = [''];
  let layer = [''];
  for (let size = 1; size <= length; size++) {
    layer = layer.flatMap((prefix) => alphabet.map((char) => prefix + char));
    out.push(...layer);
  }
  return out;
}

const literal = fc.string({ unit: fc.constantFrom('a', 'b', '/'), maxLength: 3 });
const stringTest: fc.Arbitrary<StringTest> = fc.oneof(
  fc.record({ op: fc.constantFrom('eq' as const, 'prefix' as const, 'suffix' as const, 'contains' as const), value: literal }),
  fc.record({ op: fc.constant('glob' as const), value: fc.string({ unit: fc.constantFrom('a', '/', '*', '**', '?'), minLength: 1, maxLength: 4 }) }),
  fc.constant({ op: 'nonempty' as const }),
);

describe('stringClasses', () => {
  it('has a representative answering like every string does', () => {
    const domain = allStrings(['a', 'b', '/', 'c'], 6);
    fc.assert(
      fc.property(fc.array(stringTest, { minLength: 1, maxLength: 5 }), (tests) => {
        const { witnesses, complete } = stringClasses(tests);
        expect(complete).toBe(true);
        const answers = tests.map(answerer);
        const vector = (value: string) => answers.map((answer) => (answer(value) ? '1' : '0')).join('');
        const represented = new Set(witnesses.map(vector));
        // One witness per class: no two share an answer.
        expect(represented.size).toBe(witnesses.length);
        for (const value of domain)
          if (!represented.has(vector(value))) throw new Error(`"${value}" answers ${vector(value)}, which no witness of ${JSON.stringify(witnesses)} does`);
      }),
      propertyParameters(300),
    );
  });
});

const versionText = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.constantFrom('', '-0', '-rc.1', '-1'))
  .map(([major, minor, patch, pre]) => `${major}.${minor}.${patch}${pre}`);
const versionAtom = fc.record({ op: fc.constant('semver' as const), operator: fc.constantFrom('=', '!=', '<', '<=', '>', '>=', '^', '~'), version: versionText });

describe('valueClasses for sem_ver', () => {
  it('has a representative answering like every version (and non-version) does', () => {
    const domain = [undefined, '', 'x', '1', '1.2', 'v1.0.0', '2.0.0+b', '10.0.0'];
    for (let major = 0; major <= 4; major++)
      for (let minor = 0; minor <= 3; minor++)
        for (let patch = 0; patch <= 3; patch++) for (const pre of ['', '-0', '-1', '-rc.1', '-rc.2', '-0.0']) domain.push(`${major}.${minor}.${patch}${pre}`);
    fc.assert(
      fc.property(fc.array(versionAtom, { minLength: 1, maxLength: 4 }), fc.array(fc.constantFrom('1.0.0', 'x', '1'), { maxLength: 2 }), (atoms, literals) => {
        const all: Atom[] = [...atoms, ...literals.map((value): Atom => ({ op: 'eq', value, loose: false }))];
        const classes = valueClasses('client.version', 'optional-text', all);
        // Each atom's comparison parsed once, not once per value of the domain.
        const answers = all.map((atom) => {
          if (atom.op !== 'semver') return (value: unknown) => value === (atom as { value: unknown }).value;
          const comparison = versionComparison(atom.operator, parseSemVer(atom.version)!);
          return (value: unknown) => compareToVersion(value, comparison);
        });
        const vector = (value: unknown) => JSON.stringify(answers.map((answer) => answer(value)));
        const represented = new Set(classes.values.map(vector));
        for (const value of domain) {
          if (!represented.has(vector(value))) {
            // Only an inexact result may miss a class, and it must say so.
            expect(classes.inexact).toBeDefined();
            return;
          }
        }
      }),
      propertyParameters(300),
    );
  });
});

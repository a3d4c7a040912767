import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Atom } from '../../src/core/analysis/condition-atoms.js';
import { valueClasses } from '../../src/core/analysis/value-classes.js';
import { compileLogic } from '../../src/core/logic/compile.js';
import { isTruthy } from '../../src/core/logic/truthy.js';
import { propertyParameters } from './seed.js';

// Numeric thresholds, checked against the engine: every value of a brute-force domain (numbers
// spelt every way JavaScript reads them, and for claims every JSON type) answers the atoms like
// one of the representatives does. Each atom is compiled as the rule it stands for and run.

const literals = [-1, 0, 0.5, 1, 2.5, 3, 5, 10, 1e21];
const operators = ['<', '<=', '>', '>='] as const;
const orderAtom = fc.record({ op: fc.constant('order' as const), value: fc.constantFrom(...literals) });
const equalityAtom = fc.oneof(
  fc.record({ op: fc.constant('eq' as const), value: fc.constantFrom('5', '', 'x', ' 5', '10'), loose: fc.constant(false) }),
  fc.constant({ op: 'truthy' as const }),
  fc.constant({ op: 'missing' as const }),
);

const numbers = [-2, -1, -0.5, 0, 0.25, 0.5, 0.75, 1, 2, 2.5, 3, 4, 5, 7, 10, 11, 1e21, 2e21];
const strings = ['', ' ', 'x', '5 ', ' 5', '+5', '0x5', '1e1', 'Infinity', '-Infinity', '5x', ...numbers.map(String), ...numbers.map((number) => ` ${number}`)];
const textDomain: unknown[] = [undefined, ...strings];
const claimDomain: unknown[] = [...textDomain, null, true, false, ...numbers, [], [5], ['5'], [' 10'], ['x'], [1, 2], {}, { a: 1 }];

/** The rules an atom stands for: an order atom is every operator against its literal, either way round. */
function rulesOf(atom: Atom): unknown[] {
  const read = { var: 'x' };
  if (atom.op === 'order') return operators.flatMap((operator) => [{ [operator]: [read, atom.value] }, { [operator]: [atom.value, read] }]);
  return [ruleOf(atom, read)];
}

function ruleOf(atom: Atom, read: unknown): unknown {
  switch (atom.op) {
    case 'eq':
      return { [atom.loose ? '==' : '===']: [read, atom.value] };
    case 'truthy':
      return { '!!': [read] };
    case 'missing':
      return { missing: ['x'] };
    default:
      throw new Error(`no rule for ${atom.op}`);
  }
}

function check(kind: 'optional-text' | 'claim', domain: readonly unknown[], atoms: readonly Atom[]): void {
  const rules = atoms.flatMap(rulesOf).map((rule) => compileLogic(rule));
  const vector = (value: unknown) => rules.map((rule) => (isTruthy(rule(value === undefined ? {} : { x: value })) ? '1' : '0')).join('');
  const classes = valueClasses('x', kind, atoms);
  expect(classes.inexact).toBeUndefined();
  // Representatives are values a context can hold: JSON (no NaN, no Infinity numbers).
  for (const value of classes.values) if (typeof value === 'number') expect(Number.isFinite(value)).toBe(true);
  const represented = new Set(classes.values.map(vector));
  for (const value of domain) {
    if (!represented.has(vector(value)))
      throw new Error(`${JSON.stringify(value)} answers ${vector(value)}, which no representative of ${JSON.stringify(classes.values)} does`);
  }
}

describe('valueClasses for "<", "<=", ">", ">="', () => {
  it('cuts a text path so that every string answers like a representative', () => {
    fc.assert(
      fc.property(fc.array(orderAtom, { minLength: 1, maxLength: 4 }), fc.array(equalityAtom, { maxLength: 2 }), (orders, others) => {
        check('optional-text', textDomain, [...orders, ...others]);
      }),
      propertyParameters(200),
    );
  });

  it('cuts a claim so that every JSON value answers like a representative', () => {
    const claimEquality = fc.oneof(
      equalityAtom,
      fc.record({ op: fc.constant('eq' as const), value: fc.constantFrom(5, 0, 7, null, true), loose: fc.constant(false) }),
      fc.record({ op: fc.constant('eq' as const), value: fc.constantFrom('5', 'x', ''), loose: fc.constant(true) }),
    );
    fc.assert(
      fc.property(fc.array(orderAtom, { minLength: 1, maxLength: 4 }), fc.array(claimEquality, { maxLength: 2 }), (orders, others) => {
        check('claim', claimDomain, [...orders, ...others]);
      }),
      propertyParameters(200),
    );
  });
});

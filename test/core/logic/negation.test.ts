import fc from 'fast-check';
import jsonLogic from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { compileLogic, compileRule } from '../../../src/core/logic/compile.js';
import { dataScope } from '../../../src/core/logic/data-scope.js';
import { isTruthy } from '../../../src/core/logic/truthy.js';
import { propertyParameters } from '../../properties/seed.js';

// `{"!": <test>}` compiles to one evaluator when the test's operator offers a negated form
// (compileNegation). These rules must use that form, and it must answer exactly what `!` of the
// plain test answers, for values of every type: non-strings, non-versions, NaN, arrays, objects.

const value = fc.oneof(
  fc.constantFrom('a', 'ab', 'abc', 'b', 'a/b', 'a/b/c.txt', 'x.txt', '', '1.2.3', '2.0.0', '1.2.3-beta', 'v1.2', '1', '01.2.3'),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(Number.NaN, 0.5, true, false, null, undefined),
  fc.array(fc.constantFrom('a', 'b', 1, '1', null), { maxLength: 3 }),
  fc.constant({ a: 1 }),
);
const scalar = fc.oneof(fc.constantFrom('a', 'ab', 'b', '1', ''), fc.integer({ min: -2, max: 2 }), fc.constantFrom(true, false, null));

const left = { var: 'left' };
const right = { var: 'right' };
const longList = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 1];

/** Rules whose `!` is fused; `standard` ones are also checked against json-logic-js. */
const fusedTests = fc.oneof(
  fc.record({ standard: fc.constant(true), rule: fc.tuple(fc.constantFrom('==', '===', '!=', '!=='), scalar).map(([op, literal]) => ({ [op]: [left, literal] })) }),
  fc.record({ standard: fc.constant(true), rule: fc.constantFrom('==', '===', '!=', '!==').map((op) => ({ [op]: [left, right] })) }),
  fc.record({ standard: fc.constant(true), rule: fc.array(scalar, { maxLength: 4 }).map((list) => ({ in: [left, list] })) }),
  fc.record({ standard: fc.constant(true), rule: fc.constant({ in: [left, longList] }) }),
  fc.record({ standard: fc.constant(true), rule: scalar.map((needle) => ({ in: [needle, left] })) }),
  fc.record({
    standard: fc.constant(false),
    rule: fc.tuple(fc.constantFrom('starts_with', 'ends_with'), fc.constantFrom('a', 'b', '', 'txt')).map(([op, affix]) => ({ [op]: [left, affix] })),
  }),
  fc.record({
    standard: fc.constant(false),
    rule: fc
      .tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>=', '^', '~'), fc.constantFrom('1.2.3', '2.0.0', '1.2.3-beta'))
      .map(([op, target]) => ({ sem_ver: [left, op, target] })),
  }),
  fc.record({ standard: fc.constant(false), rule: fc.constantFrom('a/**', '*.txt', 'a', 'a/*/c.txt').map((pattern) => ({ glob: [pattern, left] })) }),
);

describe('`!` over tests with a negated form', () => {
  it('compiles these tests with their negated form', () => {
    fc.assert(
      fc.property(fusedTests, ({ rule }) => {
        expect(compileRule(rule, { scope: dataScope }).root.negation).toBeTypeOf('function');
      }),
      propertyParameters(200),
    );
  });

  it('answers what `!` of the plain test answers (and json-logic-js, for its operators)', () => {
    fc.assert(
      fc.property(fusedTests, value, value, ({ rule, standard }, leftValue, rightValue) => {
        const data = { left: leftValue, right: rightValue };
        const negated = compileLogic({ '!': rule })(data);
        expect(negated).toBe(!isTruthy(compileLogic(rule)(data)));
        if (standard) expect(negated).toBe(jsonLogic.apply({ '!': rule } as jsonLogic.RulesLogic, data));
      }),
      propertyParameters(3000),
    );
  });

  it('leaves tests without a negated form, and `!!`, to the plain negation', () => {
    for (const rule of [{ '<': [left, 2] }, { in: [left, right] }, { starts_with: [left, right] }, { sem_ver: [left, right, '1.0.0'] }]) {
      expect(compileRule(rule, { scope: dataScope }).root.negation).toBeUndefined();
      for (const data of [{ left: 1, right: 'a' }, { left: Number.NaN }, { left: 'a', right: 'ab' }, {}]) {
        expect(compileLogic({ '!': rule })(data)).toBe(!isTruthy(compileLogic(rule)(data)));
      }
    }
    expect(compileLogic({ '!!': { starts_with: [left, 'a'] } })({ left: 'ab' })).toBe(true);
  });
});

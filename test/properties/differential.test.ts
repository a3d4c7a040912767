import fc from 'fast-check';
import jsonLogic from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { compileLogic } from '../../src/core/logic/compile.js';
import { PolicyError } from '../../src/core/errors.js';
import { jsonLogicRule, rootData } from './json-logic-arbitraries.js';
import { propertyParameters } from './seed.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function attempt(run: () => unknown): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

describe('compileLogic — differential against json-logic-js 2.0.5', () => {
  it('returns what json-logic-js returns for random rules and data', () => {
    let compared = 0;
    fc.assert(
      fc.property(jsonLogicRule, fc.array(rootData, { minLength: 1, maxLength: 4 }), (rule, samples) => {
        const compiled = compileLogic(rule);
        for (const data of samples) {
          const expected = attempt(() => jsonLogic.apply(rule as jsonLogic.RulesLogic, structuredClone(data)));
          const actual = attempt(() => compiled(structuredClone(data)));
          if (expected.ok) {
            expect(actual).toEqual(expected);
            compared++;
          } else if (!actual.ok) {
            // Where json-logic-js throws, we must fail with our own error type, never a raw TypeError.
            expect(actual.error).toBeInstanceOf(PolicyError);
          }
        }
      }),
      propertyParameters(1500),
    );
    expect(compared).toBeGreaterThan(1500);
  });

  // Differences random rules rarely reach, each found once; the oracle decides, not a literal.
  it.each([
    // json-logic-js rejects a falsy haystack before searching it, so "" contains nothing, not even "".
    [{ in: ['', { var: 'text' }] }, { text: '' }],
    [{ in: [{ var: 'needle' }, { var: 'text' }] }, { needle: '', text: '' }],
    [{ in: ['', ''] }, {}],
    [{ '!': { in: ['', { var: 'text' }] } }, { text: '' }],
  ])('agrees on %j with %j', (rule, data) => {
    expect(compileLogic(rule)(data)).toEqual(jsonLogic.apply(rule as jsonLogic.RulesLogic, data));
  });
});

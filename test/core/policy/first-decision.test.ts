import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { propertyParameters } from '../../properties/seed.js';
import { context, tool } from './fixtures.js';

// A request's first decision runs the rules that apply as one list of tests
// (src/core/policy/first-decision.ts); explain goes rule by rule. Conditions here are built from
// a custom operator that logs each evaluation, so both must evaluate the same conditions in the
// same order, reach the same answer, and blame the same rule when one throws.

const log: string[] = [];
let next = 0;
const operators = {
  // `{"mark": [value]}`: logs an evaluation and returns `value`.
  mark: (value: unknown) => {
    log.push(`mark-${next++}:${JSON.stringify(value)}`);
    return value;
  },
  fail: () => {
    log.push('fail');
    throw new Error('condition failed');
  },
};

const leaf = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(true, false, null, 0, 'yes', [], ['x']).map((value) => ({ mark: [value] })) },
  { weight: 1, arbitrary: fc.constant({ fail: [] }) },
  // Flat tests too (a header read), so lists mix tests and calls.
  { weight: 2, arbitrary: fc.constantFrom('1', '2').map((value) => ({ '===': [{ var: 'request.headers.x-canary' }, value] })) },
);
const condition = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    leaf,
    tie('node').map((node) => ({ '!': node })),
    fc.tuple(fc.constantFrom('and', 'or'), fc.array(tie('node'), { minLength: 1, maxLength: 3 })).map(([op, nodes]) => ({ [op]: nodes })),
  ),
})).node;

const document = fc
  .record({
    default: fc.constantFrom('allow' as const, 'deny' as const),
    rules: fc.array(fc.record({ effect: fc.constantFrom('allow' as const, 'deny' as const), when: fc.option(condition, { nil: undefined, freq: 5 }) }), { maxLength: 4 }),
  })
  .map(({ default: effect, rules }) => ({
    version: 1 as const,
    default: effect,
    rules: rules.map((rule, index) => ({ id: `rule-${index}`, effect: rule.effect, ...(rule.when === undefined ? {} : { when: rule.when }) })),
  }));

function logged<T>(run: () => T): { result: T; log: string[] } {
  log.length = 0;
  next = 0;
  const result = run();
  return { result, log: [...log] };
}

describe('a request’s first decision as one list of tests', () => {
  it('evaluates what rule-by-rule explain evaluates, in order, with the same answer and the same rule blamed', () => {
    fc.assert(
      fc.property(document, fc.constantFrom('1', '2', undefined), (doc, canary) => {
        const onError = vi.fn();
        const policy = compilePolicy(doc, { operators, onError });
        const request = context({ request: { headers: canary === undefined ? {} : { 'x-canary': canary } } });
        const search = tool('search');
        const first = logged(() => policy.evaluate(request, search));
        const reported = onError.mock.calls.map(([, where]) => where.ruleId);
        const explained = logged(() => policy.explain(context({ request: { headers: canary === undefined ? {} : { 'x-canary': canary } } }), search));
        expect(first.result).toBe(explained.result.allowed);
        expect(first.log).toEqual(explained.log);
        expect(reported).toEqual(explained.result.reason === 'error' ? [explained.result.ruleId] : []);
        // The request's later decisions (rule by rule, with the memo) agree too.
        expect(policy.evaluate(request, search)).toBe(first.result);
        expect(policy.evaluate(request, search)).toBe(first.result);
      }),
      propertyParameters(2000),
    );
  });

  it('blames the rule that threw among several (an iteration limit)', () => {
    const onError = vi.fn();
    const bigList = Array.from({ length: 600 }, (_, index) => index);
    const policy = compilePolicy(
      {
        version: 1,
        default: 'deny',
        rules: [
          // Spends 600 of 1,000 steps and holds for no one.
          { id: 'spends', effect: 'deny', when: { some: [bigList, { '<': [{ var: '' }, -1] }] } },
          // Spends 600 more: over the budget, so this rule fails.
          { id: 'over-budget', effect: 'deny', when: { some: [bigList, { '<': [{ var: '' }, -1] }] } },
          { id: 'allow-all', effect: 'allow' },
        ],
      },
      { onError, maxIterations: 1000 },
    );
    expect(policy.evaluate(context(), tool('search'))).toBe(false);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![1].ruleId).toBe('over-budget');
  });
});

import { describe, expect, it } from 'vitest';
import { diffPolicies } from '../../../src/core/analysis/diff-policies.js';
import { createRequestContext } from '../../../src/core/context.js';
import { createPrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';

const priority = { var: 'request.headers.x-priority' };
const tool = createPrimitiveMetadata('tool', 't');
const deny = (when: unknown) => ({ version: 1, default: 'allow', rules: [{ id: 'r', effect: 'deny', when }] });

/** The classes as `+t @ x-priority=…`, each confirmed by both policies on its context. */
function classesOf(before: unknown, after: unknown): string[] {
  const result = diffPolicies(before, after, [tool]);
  expect(result.exact).toBe(true);
  return result.groups.flatMap((group) =>
    group.classes.map((item) => {
      const context = createRequestContext(item.context);
      const change = item.gains.length > 0 ? '+' : '-';
      expect(compilePolicy(after).evaluate(context, tool)).toBe(change === '+');
      expect(compilePolicy(before).evaluate(context, tool)).toBe(change === '-');
      return `${change}t @ x-priority=${JSON.stringify(item.context.request?.headers?.['x-priority'])}`;
    }),
  );
}

describe('diffPolicies on numeric thresholds', () => {
  it('cuts at both ends of a between form', () => {
    // Old: hidden for 1 < x < 10; new: hidden for x > 5. Gained below 5, lost from 10 on.
    expect(classesOf(deny({ '<': [1, priority, 10] }), deny({ '>': [priority, 5] }))).toEqual(['+t @ x-priority="2"', '-t @ x-priority="10"']);
  });

  it('reads the literal on either side, and tells a header that is no number apart', () => {
    // Old: hidden for x >= 3 (written 3 <= x); new: hidden unless x < 3 — "x" is NaN, so hidden now.
    expect(classesOf(deny({ '<=': [3, priority] }), deny({ '!': { '<': [priority, 3] } }))).toEqual(['-t @ x-priority="x"']);
  });
});

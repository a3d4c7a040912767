import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { compilePredicate } from '../../../src/core/policy/predicate.js';
import { isTruthy } from '../../../src/core/logic/truthy.js';
import { builtinOperators } from '../../../src/core/logic/operators.js';
import { context, tool } from './fixtures.js';

const primitive = tool('case');

// One suite, several execution paths: the official JsonLogic cases also run through the
// predicate and the policy. Data moves under `auth.claims` (free-form data of the context;
// primitive metadata is validated now, issue 11 item 7), so every top-level `var`/`missing`
// path gets an `auth.claims.` prefix; bodies of array operators keep theirs (they read items).

const suite: unknown[] = JSON.parse(readFileSync(new URL('../../fixtures/jsonlogic-tests.json', import.meta.url), 'utf8'));

function prefix(path: unknown): unknown {
  if (path === '' || path === null || path === undefined) return 'auth.claims';
  return typeof path === 'string' || typeof path === 'number' ? `auth.claims.${path}` : undefined;
}

/** Rewrites a rule to read from `auth.claims.*`; returns undefined when a path is computed at run time. */
function rebase(rule: unknown): unknown {
  if (Array.isArray(rule)) {
    const items = rule.map(rebase);
    return items.includes(undefined) ? undefined : items;
  }
  if (rule === null || typeof rule !== 'object' || Object.keys(rule).length !== 1) return rule;
  const [op] = Object.keys(rule) as [string];
  const raw = (rule as Record<string, unknown>)[op];
  const args = Array.isArray(raw) ? raw : [raw];
  if (op === 'var') {
    const path = prefix(args[0]);
    const fallback = args.length > 1 ? rebase(args[1]) : undefined;
    if (path === undefined || (args.length > 1 && fallback === undefined)) return undefined;
    return { var: args.length > 1 ? [path, fallback] : path };
  }
  if (op === 'missing' || op === 'missing_some') {
    const keys = op === 'missing' ? args : args[1];
    const list = op === 'missing' && Array.isArray(args[0]) ? args[0] : keys;
    if (!Array.isArray(list) || list.some((key) => typeof key !== 'string')) return undefined;
    const rebased = list.map(prefix);
    if (op === 'missing') return { missing: Array.isArray(args[0]) ? [rebased] : rebased };
    return { missing_some: [args[0], rebased] };
  }
  const itemArgs = builtinOperators.get(op)?.itemArgs ?? [];
  const rebasedArgs = args.map((arg, index) => (itemArgs.includes(index) ? arg : rebase(arg)));
  if (rebasedArgs.includes(undefined)) return undefined;
  return { [op]: Array.isArray(raw) ? rebasedArgs : rebasedArgs[0] };
}

describe('official suite through compilePredicate and compilePolicy', () => {
  const cases = suite.filter((entry): entry is [unknown, unknown, unknown] => Array.isArray(entry));
  const runnable = cases
    .map(([rule, data, expected]) => ({ rule: rebase(rule), data, expected }))
    .filter((entry) => entry.rule !== undefined && entry.data !== null && typeof entry.data === 'object' && !Array.isArray(entry.data));

  it('runs most of the suite (the rest reads whole non-object data or computed paths)', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(197);
  });

  it('gives the truthiness of the expected result on both paths', () => {
    for (const { rule, data, expected } of runnable) {
      const request = context({ auth: { claims: data as Record<string, unknown> } });
      const viaPredicate = compilePredicate(rule)(request, primitive);
      const policy = compilePolicy({ version: 1, default: 'deny', enforceRequirements: false, rules: [{ id: 'case', effect: 'allow', when: rule }] });
      expect({ rule, viaPredicate }).toEqual({ rule, viaPredicate: isTruthy(expected) });
      expect({ rule, viaPolicy: policy.evaluate(request, primitive) }).toEqual({ rule, viaPolicy: isTruthy(expected) });
      expect(policy.warnings).toEqual([]);
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { compilePredicate } from '../../../src/core/policy/predicate.js';
import { isTruthy } from '../../../src/core/logic/truthy.js';
import { builtinOperators } from '../../../src/core/logic/operators.js';
import { context, tool } from './fixtures.js';
import type { PrimitiveMetadata } from '../../../src/core/context.js';

// One suite, several execution paths: the official JsonLogic cases also run through the
// predicate and the policy. Data moves under a root, so every top-level `var`/`missing` path
// gets a prefix; bodies of array operators keep theirs (they read items). The predicate reads
// the data as the primitive; a policy checks paths below `primitive` against the metadata's
// fields (context-shape.ts), so there the data moves into the free-form `auth.claims`.

const suite: unknown[] = JSON.parse(readFileSync(new URL('../../fixtures/jsonlogic-tests.json', import.meta.url), 'utf8'));

type Root = 'primitive' | 'auth.claims';

function prefixWith(root: Root, path: unknown): unknown {
  if (path === '' || path === null || path === undefined) return root;
  return typeof path === 'string' || typeof path === 'number' ? `${root}.${path}` : undefined;
}

/** Rewrites a rule to read from `root.*`; returns undefined when a path is computed at run time. */
function rebase(rule: unknown, root: Root = 'primitive'): unknown {
  const prefix = (path: unknown) => prefixWith(root, path);
  const rebaseArg = (arg: unknown) => rebase(arg, root);
  if (Array.isArray(rule)) {
    const items = rule.map(rebaseArg);
    return items.includes(undefined) ? undefined : items;
  }
  if (rule === null || typeof rule !== 'object' || Object.keys(rule).length !== 1) return rule;
  const [op] = Object.keys(rule) as [string];
  const raw = (rule as Record<string, unknown>)[op];
  const args = Array.isArray(raw) ? raw : [raw];
  if (op === 'var') {
    const path = prefix(args[0]);
    const fallback = args.length > 1 ? rebaseArg(args[1]) : undefined;
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
  const rebasedArgs = args.map((arg, index) => (itemArgs.includes(index) ? arg : rebaseArg(arg)));
  if (rebasedArgs.includes(undefined)) return undefined;
  return { [op]: Array.isArray(raw) ? rebasedArgs : rebasedArgs[0] };
}

describe('official suite through compilePredicate and compilePolicy', () => {
  const cases = suite.filter((entry): entry is [unknown, unknown, unknown] => Array.isArray(entry));
  const runnable = cases
    .map(([rule, data, expected]) => ({ rule: rebase(rule), claimsRule: rebase(rule, 'auth.claims'), data, expected }))
    .filter((entry) => entry.rule !== undefined && entry.data !== null && typeof entry.data === 'object' && !Array.isArray(entry.data));

  it('runs most of the suite (the rest reads whole non-object data or computed paths)', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(197);
  });

  it('gives the truthiness of the expected result on both paths', () => {
    for (const { rule, claimsRule, data, expected } of runnable) {
      const primitive = data as unknown as PrimitiveMetadata;
      const viaPredicate = compilePredicate(rule)(context(), primitive);
      const policy = compilePolicy({ version: 1, default: 'deny', enforceRequirements: false, rules: [{ id: 'case', effect: 'allow', when: claimsRule }] });
      const claimsContext = context({ auth: { claims: data as Record<string, unknown> } });
      expect({ rule, viaPredicate }).toEqual({ rule, viaPredicate: isTruthy(expected) });
      expect({ rule: claimsRule, viaPolicy: policy.evaluate(claimsContext, tool('t')) }).toEqual({ rule: claimsRule, viaPolicy: isTruthy(expected) });
      expect(policy.warnings).toEqual([]);
    }
  });
});

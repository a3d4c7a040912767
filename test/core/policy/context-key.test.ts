import { describe, expect, it } from 'vitest';
import type { PrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { createVisibilityFilter } from '../../../src/core/policy/visibility-filter.js';
import { context, tool } from './fixtures.js';

// The key of a decision cache must project the context onto exactly what the compiled rules
// read. These pin the reads that a dot-path projection got wrong; test/properties/context-key
// checks the rule over random policies.

const identity = (primitive: PrimitiveMetadata) => primitive;
const tools = Array.from({ length: 20 }, (_, index) => tool(`t${index}`, { groups: index === 0 ? ['team'] : [] }));
const short = context({ request: { headers: { 'x-team': 'abc' } } });
const long = context({ request: { headers: { 'x-team': 'abcdefghij' } } });

function teamPolicy(when: unknown) {
  return compilePolicy({ version: 1, default: 'allow', rules: [{ id: 'team', effect: 'deny', appliesTo: { groups: ['team'] }, when }] });
}

describe('Policy.contextKeyFor', () => {
  it('tells apart callers whose header differs below the header (a sub-path such as x-team.length)', () => {
    const policy = teamPolicy({ '>=': [{ var: 'request.headers.x-team.length' }, 8] });
    const key = policy.contextKeyFor(tools);
    expect(policy.evaluate(short, tools[0]!)).toBe(true);
    expect(policy.evaluate(long, tools[0]!)).toBe(false);
    expect(key(short)).not.toBe(key(long));
  });

  it('keys a header a requirement names whole, dots and all, and a rule path at every dot', () => {
    const dotted = tool('dotted', { requires: { headers: { 'x.team': 'a' } } });
    const policy = compilePolicy({ version: 1, default: 'allow', enforceRequirements: true, rules: [] });
    const key = policy.contextKeyFor([dotted]);
    const withHeader = context({ request: { headers: { 'x.team': 'a' } } });
    const without = context({ request: { headers: { 'x.team': 'b' } } });
    expect(policy.evaluate(withHeader, dotted)).not.toBe(policy.evaluate(without, dotted));
    expect(key(withHeader)).not.toBe(key(without));
  });

  it('tells apart numbers JSON prints alike (-0 and 0, NaN and null) when a rule can', () => {
    const policy = compilePolicy({
      version: 1,
      default: 'deny',
      rules: [{ id: 'sign', effect: 'allow', when: { '>': [{ '/': [1, { var: 'auth.claims.level' }] }, 0] } }],
    });
    const key = policy.contextKeyFor(tools);
    const plus = context({ auth: { claims: { level: 0 } } });
    const minus = context({ auth: { claims: { level: -0 } } });
    expect(policy.evaluate(plus, tools[1]!)).not.toBe(policy.evaluate(minus, tools[1]!));
    expect(key(plus)).not.toBe(key(minus));
  });
});

describe('createVisibilityFilter (cache keys)', () => {
  it('never hands one caller the list cached for another whose header differs below the header', () => {
    const policy = teamPolicy({ '>=': [{ var: 'request.headers.x-team.length' }, 8] });
    const filter = createVisibilityFilter(policy, tools, identity, { minItemsToCache: 0 });
    // Twice each, so both lists are admitted to the cache.
    for (let round = 0; round < 3; round++) {
      expect(filter.visible(short).map((item) => item.name)).toContain('t0');
      expect(filter.visible(long).map((item) => item.name)).not.toContain('t0');
    }
  });

  it('keys a computed var path on the whole context', () => {
    const policy = teamPolicy({ '==': [{ var: { cat: ['request.headers.', { var: 'request.headers.x-which' }] } }, 'deny'] });
    const filter = createVisibilityFilter(policy, tools, identity, { minItemsToCache: 0 });
    const denied = context({ request: { headers: { 'x-which': 'x-team', 'x-team': 'deny' } } });
    const allowed = context({ request: { headers: { 'x-which': 'x-team', 'x-team': 'allow' } } });
    for (let round = 0; round < 3; round++) {
      expect(filter.visible(allowed).map((item) => item.name)).toContain('t0');
      expect(filter.visible(denied).map((item) => item.name)).not.toContain('t0');
    }
  });
});

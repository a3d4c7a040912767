import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../../src/core/context.js';
import { PolicyCompileError } from '../../../src/core/errors.js';
import { flagFallbacksOf, withFlagValues } from '../../../src/core/flag-values.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { createPolicyJsonSchema } from '../../../src/core/policy/schema.js';
import { context, tool } from './fixtures.js';

// The `flags` var root (docs/policy-language.md, "Feature flags"): keys known when the policy
// compiles, each with a declared default, read from the values a gate resolved for the request.

const search = tool('search');
const newSearch = tool('new-search', { groups: ['new-search'] });

const document = {
  version: 1,
  default: 'allow',
  flags: { 'new-search': { default: false }, limits: { default: { tier: 'basic' } } },
  rules: [
    { id: 'new-search-off', effect: 'deny', appliesTo: { groups: ['new-search'] }, when: { '!': { var: 'flags.new-search' } } },
    { id: 'basic-tier', effect: 'deny', appliesTo: { names: ['search'] }, when: { '==': [{ var: 'flags.limits.tier' }, 'none'] } },
  ],
};

function compileError(input: unknown): PolicyCompileError {
  try {
    compilePolicy(input);
  } catch (error) {
    if (error instanceof PolicyCompileError) return error;
    throw error;
  }
  throw new Error('compiled');
}

describe('flags in policies', () => {
  const policy = compilePolicy(document);

  it('lists the flag keys the rules read with their declared defaults', () => {
    expect(policy.flags).toEqual({ 'new-search': false, limits: { tier: 'basic' } });
    expect(policy.reads).toContain('flags.new-search');
    expect(policy.reads).toContain('flags.limits.tier');
  });

  it('reads the values the context carries, and the declared default when it carries none', () => {
    const on = withFlagValues(context(), { 'new-search': true });
    expect(policy.evaluate(on, newSearch)).toBe(true);
    expect(policy.evaluate(context(), newSearch)).toBe(false);
    expect(policy.evaluate(withFlagValues(context(), { 'new-search': false }), newSearch)).toBe(false);
    expect(policy.evaluate(withFlagValues(context(), { limits: { tier: 'none' } }), search)).toBe(false);
    expect(policy.evaluate(context(), search)).toBe(true);
    expect(policy.forContext(on)(newSearch)).toBe(true);
    expect(policy.explain(on, newSearch).reason).toBe('default');
  });

  it('takes flag values from createRequestContext input (what explain --context gives)', () => {
    const given = createRequestContext({ flags: { 'new-search': true } });
    expect(given.flags).toEqual({ 'new-search': true });
    expect(Object.isFrozen(given.flags)).toBe(true);
    expect(policy.evaluate(given, newSearch)).toBe(true);
  });

  it('gives contexts with different flag values different cache keys, equal values equal keys', () => {
    const key = policy.contextKeyFor([search, newSearch]);
    const base = context({ auth: { subject: 'alice' } });
    expect(key(withFlagValues(base, { 'new-search': true }))).not.toBe(key(withFlagValues(base, { 'new-search': false })));
    expect(key(withFlagValues(base, { 'new-search': true }))).toBe(key(withFlagValues(context({ auth: { subject: 'alice' } }), { 'new-search': true })));
  });

  it('says in the explanation which flags fell back to their defaults, and why', () => {
    const fellBack = withFlagValues(context(), { 'new-search': false }, [{ key: 'new-search', value: false, why: 'timed out after 200 ms' }]);
    expect(flagFallbacksOf(fellBack)).toHaveLength(1);
    const decision = policy.explain(fellBack, newSearch);
    expect(decision.allowed).toBe(false);
    expect(decision.message).toBe('denied by rule "new-search-off"; flag "new-search" fell back to its default false (timed out after 200 ms)');
    expect(decision.flagFallbacks).toEqual([{ key: 'new-search', value: false, why: 'timed out after 200 ms' }]);
  });

  it('rejects a flag read without a declared default, naming the flag and where it is read', () => {
    const error = compileError({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', when: { var: 'flags.beta' } }] });
    expect(error.issues).toEqual([
      {
        code: 'undeclared_flag',
        path: 'rules[0].when.var',
        message: 'flag "beta" has no declared default: add "flags": {"beta": {"default": …}} to the policy',
      },
    ]);
  });

  it('rejects a computed path that may lead under flags (keys must be static), and "flags" without a key', () => {
    const computed = compileError({
      version: 1,
      default: 'deny',
      flags: { beta: { default: false } },
      rules: [{ id: 'r', effect: 'allow', when: { var: { cat: ['flags.', { var: 'auth.subject' }] } } }],
    });
    expect(computed.issues).toEqual([
      {
        code: 'dynamic_flag_path',
        path: 'rules[0].when.var',
        message: 'a computed path may lead under "flags": flag keys must be literal, e.g. {"var": "flags.new-search"}',
      },
    ]);
    const bare = compileError({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', when: { var: 'flags' } }] });
    expect(bare.issues.map(({ code, path, message }) => ({ code, path, message }))).toEqual([
      { code: 'invalid_argument', path: 'rules[0].when.var', message: '"flags" needs a flag key: {"var": "flags.<key>"}' },
    ]);
  });

  it('accepts a computed path built from a flag read, and never reads a flag through a computed path', () => {
    const policyWithComputed = compilePolicy({
      version: 1,
      default: 'deny',
      flags: { field: { default: 'auth.subject' } },
      rules: [{ id: 'r', effect: 'allow', when: { '==': [{ var: { var: 'flags.field' } }, 'alice'] } }],
    });
    expect(policyWithComputed.evaluate(context({ auth: { subject: 'alice' } }), search)).toBe(true);
    expect(policyWithComputed.evaluate(withFlagValues(context({ auth: { subject: 'alice' } }), { field: 'flags.field' }), search)).toBe(false);
  });

  it('warns about declared flags no rule reads (an error with strict)', () => {
    const unused = { version: 1, default: 'deny', flags: { stale: { default: true } }, rules: [] };
    expect(compilePolicy(unused).warnings).toEqual([
      { code: 'unused_flag', path: 'flags.stale', message: 'flag "stale" is declared but no rule reads it', severity: 'warning' },
    ]);
    expect(() => compilePolicy(unused, { strict: true })).toThrow('flags.stale: flag "stale" is declared but no rule reads it');
  });

  it('validates the declarations: keys without dots, a default of a JSON type', () => {
    const error = compileError({ version: 1, default: 'deny', flags: { 'a.b': { default: true }, c: { default: null } }, rules: [] });
    expect(error.issues.map(({ path }) => path)).toEqual(['flags["a.b"]', 'flags.c.default']);
  });

  it('changes the revision when a default changes', () => {
    const other = compilePolicy({ ...document, flags: { ...document.flags, 'new-search': { default: true } } });
    expect(other.revision).not.toBe(policy.revision);
  });

  it('is in the shipped JSON Schema: the flags field and flags.<key> paths', () => {
    const schema = createPolicyJsonSchema() as { properties: Record<string, unknown>; $defs: { contextPath: { pattern: string } } };
    expect(schema.properties).toHaveProperty('flags');
    const pattern = new RegExp(schema.$defs.contextPath.pattern);
    expect(pattern.test('flags.new-search')).toBe(true);
    expect(pattern.test('flags.limits.tier')).toBe(true);
    expect(pattern.test('flags')).toBe(false);
  });
});

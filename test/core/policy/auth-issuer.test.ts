import { describe, expect, it } from 'vitest';
import { createRequestContext, requestContextSchema } from '../../../src/core/context.js';
import { PolicyCompileError } from '../../../src/core/errors.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { context, tool } from './fixtures.js';

// auth.issuer, the token's `iss`: the field added by following docs/design.md's "add a context
// field" checklist. Each step of the checklist has a test here or beside the adapters.

const trusted = 'https://idp.example.com';
const other = 'https://other.example.org';
const admin = tool('admin', { groups: ['admin'] });
const search = tool('search');

/** Admin tools only for tokens of the trusted issuer; `when` in a flat test form (`!=` a literal) or a closure (`var` with a default inside `cat`). */
function issuerPolicy(when: unknown) {
  return compilePolicy({ version: 1, default: 'allow', rules: [{ id: 'trusted-issuer', effect: 'deny', appliesTo: { groups: ['admin'] }, when }] });
}
const forms = {
  'flat test': { '!=': [{ var: 'auth.issuer' }, trusted] },
  closure: { '!=': [{ cat: [{ var: ['auth.issuer', 'none'] }] }, trusted] },
  starts_with: { '!': { starts_with: [{ var: 'auth.issuer' }, 'https://idp.'] } },
};

const fromTrusted = context({ auth: { issuer: trusted, subject: 'alice' } });
const fromOther = context({ auth: { issuer: other, subject: 'alice' } });
const anonymous = context();

describe('auth.issuer in the context', () => {
  it('is kept by createRequestContext when a string, dropped otherwise, and frozen with the rest', () => {
    expect(fromTrusted.auth.issuer).toBe(trusted);
    expect(anonymous.auth.issuer).toBeUndefined();
    expect(createRequestContext({ auth: { issuer: 42 as unknown as string } }).auth.issuer).toBeUndefined();
    expect(Object.isFrozen(fromTrusted.auth)).toBe(true);
  });

  it('is in the context schema (explain --context and cases files check against it)', () => {
    expect(requestContextSchema.shape.auth.shape).toHaveProperty('issuer');
    expect(
      requestContextSchema.safeParse({ request: { method: 'm', headers: {}, endpoint: '' }, client: {}, auth: { issuer: trusted, scopes: [], claims: {} } }).success,
    ).toBe(true);
  });
});

describe.each(Object.entries(forms))('a policy reading auth.issuer (%s)', (_form, when) => {
  const policy = issuerPolicy(when);

  it('compiles with no warnings and records the read', () => {
    expect(policy.warnings).toEqual([]);
    expect(policy.reads).toContain('auth.issuer');
    expect(policy.callerSpecific).toBe(true);
  });

  it('decides by issuer through evaluate, forContext and explain', () => {
    expect(policy.evaluate(fromTrusted, admin)).toBe(true);
    expect(policy.evaluate(fromOther, admin)).toBe(false);
    expect(policy.evaluate(anonymous, admin)).toBe(false);
    expect(policy.evaluate(fromOther, search)).toBe(true);
    expect([admin, search].filter(policy.forContext(fromTrusted))).toEqual([admin, search]);
    expect([admin, search].filter(policy.forContext(fromOther))).toEqual([search]);
    expect(policy.explain(fromOther, admin)).toMatchObject({ allowed: false, reason: 'rule', ruleId: 'trusted-issuer' });
    expect(policy.explain(fromTrusted, admin)).toMatchObject({ allowed: true, reason: 'default' });
  });

  it('gives callers of different issuers different cache keys, and callers of one issuer one key', () => {
    const key = policy.contextKeyFor([admin, search]);
    expect(key(fromTrusted)).not.toBe(key(fromOther));
    expect(key(fromTrusted)).not.toBe(key(anonymous));
    expect(key(fromTrusted)).toBe(key(context({ auth: { issuer: trusted, subject: 'bob' } })));
  });
});

describe('the var-path check of auth.issuer', () => {
  it('accepts the field and its string tails, and suggests it for a misspelling', () => {
    expect(issuerPolicy({ '>': [{ var: 'auth.issuer.length' }, 0] }).warnings).toEqual([]);
    expect(() => issuerPolicy({ '==': [{ var: 'auth.isuser' }, trusted] })).toThrow(PolicyCompileError);
    expect(() => issuerPolicy({ '==': [{ var: 'auth.isuser' }, trusted] })).toThrow('unknown field "isuser" under "auth" (did you mean "issuer"?)');
    expect(() => issuerPolicy({ '==': [{ var: 'auth.issuer.host' }, trusted] })).toThrow('"auth.issuer" is a string: it has no field "host"');
  });
});

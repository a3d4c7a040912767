import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { PolicyCompileError, type PolicyIssue } from '../../src/core/errors.js';
import { compilePolicy, type CompilePolicyOptions } from '../../src/core/policy/compile-policy.js';
import { withWhen } from './counting.js';

function issuesOf(document: unknown, options: CompilePolicyOptions = {}): readonly PolicyIssue[] {
  try {
    compilePolicy(document, options);
  } catch (error) {
    if (error instanceof PolicyCompileError) return error.issues;
    throw error;
  }
  return [];
}

const prototypeKeys = ['__proto__', 'constructor', 'prototype'];
const objectPrototypeMembers = Object.getOwnPropertyNames(Object.prototype);
const tool = createPrimitiveMetadata('tool', 'search');

describe('compilePolicy (hostile keys)', () => {
  it.each(prototypeKeys)('rejects a %s key at every level of the document without touching a prototype', (key) => {
    const documents = [
      `{"version":1,"default":"deny","${key}":{"polluted":true}}`,
      `{"version":1,"default":"deny","rules":[{"id":"r","effect":"allow","${key}":{"polluted":true}}]}`,
      `{"version":1,"default":"deny","rules":[{"id":"r","effect":"allow","appliesTo":{"${key}":{"polluted":true}}}]}`,
    ];
    const paths = documents.map((text) => issuesOf(JSON.parse(text)).map((issue) => [issue.code, issue.path]));
    expect(paths).toEqual([[['invalid_document', '']], [['invalid_document', 'rules[0]']], [['invalid_document', 'rules[0].appliesTo']]]);
    expect((Object.prototype as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each(prototypeKeys)('rejects var and has paths through %s at every context root', (segment) => {
    for (const root of ['request.headers', 'client.capabilities', 'auth.claims', 'primitive']) {
      expect(issuesOf(withWhen({ var: `${root}.${segment}.x` }))).toEqual([
        { code: 'forbidden_path', path: 'rules[0].when.var', message: `path segment "${segment}" is not allowed` },
      ]);
    }
    expect(issuesOf(withWhen({ has: `sampling.${segment}` }))).toEqual([
      { code: 'invalid_argument', path: 'rules[0].when.has', message: `path segment "${segment}" is not allowed` },
    ]);
  });

  it.each(prototypeKeys)('reads nothing through %s when the path is computed at run time', (segment) => {
    const policy = compilePolicy({
      version: 1,
      default: 'deny',
      rules: [
        { id: 'var', effect: 'allow', when: { '!!': { var: { cat: ['client.capabilities.', { var: 'request.headers.x-key' }] } } } },
        { id: 'has', effect: 'allow', when: { has: { var: 'request.headers.x-key' } } },
        { id: 'claims', effect: 'allow', when: { '!!': { var: { cat: ['auth.claims.', { var: 'request.headers.x-key' }, '.x'] } } } },
      ],
    });
    const context = createRequestContext({
      request: { headers: { 'x-key': segment } },
      client: { capabilities: JSON.parse(`{"${segment}": {"x": 1}, "sampling": {}}`) },
      auth: { claims: JSON.parse(`{"${segment}": {"x": 1}}`) },
    });
    expect(policy.explain(context, tool)).toMatchObject({ allowed: false, reason: 'default' });
  });

  it('treats every Object.prototype member name as an unknown operator, at its path', () => {
    for (const name of objectPrototypeMembers) {
      const issues = issuesOf(withWhen(JSON.parse(`{${JSON.stringify(name)}: [1]}`)));
      expect(
        issues.map(({ code, path }) => ({ code, path })),
        name,
      ).toEqual([{ code: 'unknown_operator', path: `rules[0].when.${name}` }]);
    }
  });

  // Regression (fixed in 0216907): `unsupported[name]` in reportUnknown found Object.prototype
  // members, so the issue's message was that member (a function, or Object.prototype) instead of text.
  it('gives every unknown operator named like an Object.prototype member a text message', () => {
    const wrong = objectPrototypeMembers.flatMap((name) => {
      const [issue] = issuesOf(withWhen(JSON.parse(`{${JSON.stringify(name)}: [1]}`)));
      return typeof issue?.message === 'string' && issue.message.startsWith(`unknown operator "${name}"`) ? [] : [`${name}: ${typeof issue?.message}`];
    });
    expect(wrong).toEqual([]);
  });

  it('rejects "method" and "log", which would have side effects', () => {
    expect(issuesOf(withWhen({ or: [{ method: [{ var: 'client.name' }, 'toUpperCase'] }, { log: 'x' }] }))).toEqual([
      { code: 'unknown_operator', path: 'rules[0].when.or[0].method', message: 'operator "method" is not supported: rules cannot call methods on data' },
      { code: 'unknown_operator', path: 'rules[0].when.or[1].log', message: 'operator "log" is not supported: rules have no side effects' },
    ]);
  });

  it('rejects custom operators named __proto__, method or log, and ignores inherited ones', () => {
    const operators = Object.create({ inherited: () => true }) as Record<string, unknown>;
    Object.defineProperty(operators, '__proto__', { value: () => 1, enumerable: true });
    Object.assign(operators, { method: () => 1, log: () => 1 });
    const issues = issuesOf(withWhen({ inherited: [] }), { operators: operators as CompilePolicyOptions['operators'] });
    expect(issues.map(({ path }) => path)).toEqual(['operators.__proto__', 'operators.method', 'operators.log', 'rules[0].when.inherited']);
  });

  it('lets a custom operator named constructor work like any other, without shadowing anything', () => {
    const policy = compilePolicy(withWhen({ and: [{ constructor: [] }, { '==': [1, 1] }] }), { operators: { constructor: () => true } });
    expect(policy.explain(createRequestContext(), tool)).toMatchObject({ allowed: true, ruleId: 'hostile' });
  });

  // Regression (fixed in 0216907): the custom operator table was validated once per rule with a
  // `when`, so its issues repeated per rule, and a policy without any `when` accepted it silently.
  it('reports an invalid custom operator once, whether or not a rule has a condition', () => {
    const operators = { Bad: () => true };
    const twoRules = {
      version: 1,
      default: 'deny',
      rules: [
        { id: 'a', effect: 'allow', when: true },
        { id: 'b', effect: 'allow', when: true },
      ],
    };
    expect(issuesOf(twoRules, { operators }).map(({ path }) => path)).toEqual(['operators.Bad']);
    expect(issuesOf({ version: 1, default: 'deny' }, { operators }).map(({ path }) => path)).toEqual(['operators.Bad']);
  });
});

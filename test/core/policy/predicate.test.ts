import { describe, expect, it, vi } from 'vitest';
import { compilePredicate } from '../../../src/core/policy/predicate.js';
import { PolicyCompileError, PolicyEvaluationError } from '../../../src/core/errors.js';
import { context, tool } from './fixtures.js';

describe('compilePredicate', () => {
  it('resolves request, client, auth and primitive roots (tool is an alias)', () => {
    const canary = compilePredicate({
      and: [
        { '==': [{ var: 'request.headers.x-canary' }, '1'] },
        { in: ['canary', { var: 'tool.groups' }] },
        { '==': [{ var: 'client.name' }, 'cursor'] },
        { in: ['admin', { var: 'auth.scopes' }] },
      ],
    });
    const ctx = context({ request: { headers: { 'X-Canary': '1' } }, client: { name: 'cursor' }, auth: { scopes: ['admin'] } });
    expect(canary(ctx, tool('deploy', { groups: ['canary'] }))).toBe(true);
    expect(canary(ctx, tool('deploy', { groups: ['stable'] }))).toBe(false);
    expect(canary.reads).toEqual(['auth.scopes', 'client.name', 'primitive.groups', 'request.headers.x-canary']);
  });

  it('counts non-boolean results by JSON-Logic truthiness', () => {
    expect(compilePredicate({ var: 'primitive.tags' })(context(), tool('a', { tags: [] }))).toBe(false);
    expect(compilePredicate({ var: 'primitive.tags' })(context(), tool('a', { tags: ['x'] }))).toBe(true);
    expect(compilePredicate({ var: 'primitive.name' })(context(), tool('a'))).toBe(true);
  });

  it('rejects unknown roots at compile time with a suggestion', () => {
    expect(() => compilePredicate({ var: 'requst.headers.a' })).toThrow(PolicyCompileError);
    expect(() => compilePredicate({ var: 'requst.headers.a' })).toThrow(
      'var: unknown var root "requst" (did you mean "request"?); paths start with request, client, auth, primitive, tool',
    );
    expect(() => compilePredicate({ var: '' })).toThrow('var needs a path starting with request, client, auth, primitive, tool');
  });

  it('fails closed and reports to onError when evaluation throws', () => {
    const onError = vi.fn();
    const predicate = compilePredicate(
      { explode: [] },
      {
        onError,
        operators: {
          explode: () => {
            throw new Error('kaput');
          },
        },
      },
    );
    const deploy = tool('deploy');
    expect(predicate(context(), deploy)).toBe(false);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toBeInstanceOf(PolicyEvaluationError);
    expect(onError.mock.calls[0]![1]).toEqual({ ruleId: undefined, primitive: deploy });
  });

  it('never throws, even when the onError handler throws', () => {
    const predicate = compilePredicate(
      { explode: [] },
      {
        onError: () => {
          throw new Error('handler');
        },
        operators: {
          explode: () => {
            throw new Error('x');
          },
        },
      },
    );
    expect(predicate(context(), tool('a'))).toBe(false);
  });

  it('tests capability presence with has / has_all ({} counts as present)', () => {
    const capabilities = { sampling: {}, elicitation: { url: {} }, extensions: { 'com.example/report-export': {} }, roots: { listChanged: false } };
    const ctx = context({ client: { capabilities } });
    const check = (rule: unknown) => compilePredicate(rule)(ctx, tool('a'));
    expect(check({ has: 'sampling' })).toBe(true);
    expect(check({ has: 'elicitation.url' })).toBe(true);
    expect(check({ has: 'elicitation.form' })).toBe(false);
    expect(check({ has: 'extensions.com.example/report-export' })).toBe(true);
    expect(check({ has: 'roots.listChanged' })).toBe(false);
    expect(check({ has_all: ['sampling', 'roots'] })).toBe(true);
    expect(check({ has_all: ['sampling', 'tasks'] })).toBe(false);
    expect(check({ has: [{ var: 'auth.claims' }, 'org'] })).toBe(false);
    expect(compilePredicate({ has: 'sampling' })(context(), tool('a'))).toBe(false);
  });

  it('matches globs over names and endpoints', () => {
    const admin = compilePredicate({ glob: ['/mcp/admin/**', { var: 'request.endpoint' }] });
    expect(admin(context({ request: { endpoint: '/mcp/admin/users' } }), tool('a'))).toBe(true);
    expect(admin(context({ request: { endpoint: '/mcp/public' } }), tool('a'))).toBe(false);
    const named = compilePredicate({ glob: ['admin_*', { var: 'primitive.name' }] });
    expect(named(context(), tool('admin_users'))).toBe(true);
    expect(named(context(), tool('user_admin'))).toBe(false);
  });
});

import { describe, expect, it, vi } from 'vitest';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { PolicyCompileError } from '../../../src/core/errors.js';
import { context, primitive, tool } from './fixtures.js';

const canaryPolicy = {
  version: 1,
  default: 'allow',
  rules: [
    {
      id: 'canary-needs-header',
      description: 'Canary tools only for x-canary: 1',
      effect: 'deny',
      appliesTo: { groups: ['canary'] },
      when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] },
    },
  ],
} as const;

describe('compilePolicy', () => {
  it('applies the default when no rule matches, and deny rules where they match', () => {
    const policy = compilePolicy(canaryPolicy);
    const deploy = tool('deploy', { groups: ['canary'] });
    expect(policy.evaluate(context(), tool('search'))).toBe(true);
    expect(policy.evaluate(context(), deploy)).toBe(false);
    expect(policy.evaluate(context({ request: { headers: { 'x-canary': '1' } } }), deploy)).toBe(true);
  });

  it('lets deny override allow', () => {
    const policy = compilePolicy({
      version: 1,
      default: 'deny',
      rules: [
        { id: 'allow-all-tools', effect: 'allow', appliesTo: { kinds: ['tool'] } },
        { id: 'no-admin', effect: 'deny', appliesTo: { names: ['admin_*'] } },
      ],
    });
    expect(policy.evaluate(context(), tool('search'))).toBe(true);
    expect(policy.evaluate(context(), tool('admin_users'))).toBe(false);
    expect(policy.evaluate(context(), primitive('prompt', 'greet'))).toBe(false);
    expect(policy.explain(context(), tool('admin_users'))).toEqual({ allowed: false, reason: 'rule', ruleId: 'no-admin', message: 'denied by rule "no-admin"' });
  });

  it('matches resources by URI glob as well as by name', () => {
    const policy = compilePolicy({ version: 1, default: 'allow', rules: [{ id: 'no-secrets', effect: 'deny', appliesTo: { names: ['file:///secrets/**'] } }] });
    expect(policy.evaluate(context(), primitive('resource', 'keys', {}, 'file:///secrets/keys.txt'))).toBe(false);
    expect(policy.evaluate(context(), primitive('resource', 'readme', {}, 'file:///docs/readme.md'))).toBe(true);
  });

  it('enforces metadata requirements by default and explains the unmet one', () => {
    const policy = compilePolicy({ version: 1, default: 'allow', rules: [] });
    const summarize = tool('summarize', { requires: { capabilities: ['sampling'] } });
    const admin = tool('admin', { endpoints: ['/mcp/admin'] });
    const beta = tool('beta', { requires: { headers: { 'X-Beta': 'yes' } } });
    const withSampling = context({ client: { capabilities: { sampling: {} } } });
    const withoutSampling = context({ client: { capabilities: {} } });
    expect(policy.evaluate(withSampling, summarize)).toBe(true);
    expect(policy.explain(withoutSampling, summarize)).toEqual({
      allowed: false,
      reason: 'requirement',
      ruleId: undefined,
      message: 'requires client capability "sampling"',
      unmet: { kind: 'capability', capability: 'sampling' },
    });
    expect(policy.explain(context(), summarize).unmet).toEqual({ kind: 'capabilities-undeclared', capabilities: ['sampling'] });
    expect(policy.explain(context(), admin).unmet).toEqual({ kind: 'endpoint', endpoint: '/mcp', allowed: ['/mcp/admin'] });
    expect(policy.explain(context(), beta).unmet).toEqual({ kind: 'header', header: 'x-beta', value: 'yes' });
    expect(policy.explain(context(), summarize).message).toBe('client did not declare its capabilities; requires "sampling"');
    expect(policy.explain(context({ request: { endpoint: '/mcp' } }), admin).message).toBe('not available on endpoint "/mcp" (only /mcp/admin)');
    expect(policy.evaluate(context({ request: { endpoint: '/mcp/admin' } }), admin)).toBe(true);
    expect(policy.explain(context(), beta).message).toBe('requires header "x-beta: yes"');
    expect(policy.evaluate(context({ request: { headers: { 'x-beta': 'yes' } } }), beta)).toBe(true);
  });

  it('allows capability-gated primitives for silent clients when onMissingCapabilities is allow', () => {
    const summarize = tool('summarize', { requires: { capabilities: ['sampling'] } });
    const lenient = compilePolicy({ version: 1, default: 'allow' }, { onMissingCapabilities: 'allow' });
    expect(lenient.evaluate(context(), summarize)).toBe(true);
    expect(lenient.evaluate(context({ client: { capabilities: {} } }), summarize)).toBe(false);
  });

  it('ignores requirements when enforceRequirements is false', () => {
    const policy = compilePolicy({ version: 1, default: 'allow', enforceRequirements: false });
    expect(policy.evaluate(context(), tool('summarize', { requires: { capabilities: ['sampling'] } }))).toBe(true);
  });

  it('explains default decisions and allow rules with their description', () => {
    const policy = compilePolicy({
      version: 1,
      default: 'deny',
      rules: [{ id: 'cursor', description: 'Cursor users', effect: 'allow', when: { '==': [{ var: 'client.name' }, 'cursor'] } }],
    });
    expect(policy.explain(context({ client: { name: 'cursor' } }), tool('a'))).toEqual({
      allowed: true,
      reason: 'rule',
      ruleId: 'cursor',
      message: 'allowed by rule "cursor": Cursor users',
      description: 'Cursor users',
    });
    expect(policy.rules).toEqual([{ id: 'cursor', effect: 'allow', description: 'Cursor users' }]);
    expect(policy.default).toBe('deny');
    expect(policy.explain(context(), tool('a'))).toEqual({ allowed: false, reason: 'default', ruleId: undefined, message: 'no rule matched; default is deny' });
  });

  it('hides the primitive (fail closed) when a rule throws, reports once, and leaves others alone', () => {
    const onError = vi.fn();
    const policy = compilePolicy(
      { version: 1, default: 'allow', rules: [{ id: 'flaky', effect: 'deny', appliesTo: { names: ['risky'] }, when: { flaky: [] } }] },
      {
        onError,
        operators: {
          flaky: () => {
            throw new Error('backend down');
          },
        },
      },
    );
    expect(policy.evaluate(context(), tool('risky'))).toBe(false);
    expect(policy.evaluate(context(), tool('safe'))).toBe(true);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![1].ruleId).toBe('flaky');
    const decision = policy.explain(context(), tool('risky'));
    expect(decision).toMatchObject({ allowed: false, reason: 'error', ruleId: 'flaky' });
    expect(decision.message).toBe('rule "flaky" failed (hidden, fail closed): evaluation failed: backend down');
  });

  it('reports every document issue with its path', () => {
    const document = {
      version: 2,
      default: 'maybe',
      rules: [
        { id: 'a', effect: 'allow', when: { startswith: [{ var: 'client.name' }, 'x'] } },
        { id: 'a', effect: 'deny', appliesTo: { kinds: ['widget'] } },
        { id: 'c', effect: 'deny', when: { var: 'reqest.endpoint' }, extra: 1 },
      ],
    };
    try {
      compilePolicy(document, { source: 'policies/bad.json' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PolicyCompileError);
      const issues = (error as PolicyCompileError).issues;
      // Rule conditions are compiled even though the document's shape is wrong: one pass, every issue.
      expect(issues.map((issue) => issue.path)).toEqual([
        'version',
        'default',
        'rules[0].when.startswith',
        'rules[1].appliesTo.kinds[0]',
        'rules[1].id',
        'rules[2]',
        'rules[2].when.var',
      ]);
      expect((error as Error).message.split('\n')[0]).toBe('invalid policies/bad.json (7 issues):');
    }
  });

  it('reports rule issues of a well-formed document together, with suggestions and duplicate ids', () => {
    const document = {
      version: 1,
      default: 'deny',
      rules: [
        { id: 'a', effect: 'allow', when: { startswith: [{ var: 'client.name' }, 'x'] } },
        { id: 'a', effect: 'deny' },
        { id: 'c', effect: 'deny', when: { var: 'reqest.endpoint' } },
      ],
    };
    expect(() => compilePolicy(document)).toThrow(
      [
        'invalid policy (3 issues):',
        '  rules[0].when.startswith: unknown operator "startswith" (did you mean "starts_with"?)',
        '  rules[1].id: rule id "a" is already used by rules[0]',
        '  rules[2].when.var: unknown var root "reqest" (did you mean "request"?); paths start with request, client, auth, primitive, tool',
      ].join('\n'),
    );
  });

  it('rejects __proto__ keys and non-objects without polluting anything', () => {
    expect(() => compilePolicy(JSON.parse('{"version":1,"default":"allow","__proto__":{"polluted":true}}'))).toThrow(PolicyCompileError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => compilePolicy(null)).toThrow(PolicyCompileError);
    expect(() => compilePolicy('allow')).toThrow(PolicyCompileError);
  });

  it('has a content revision that ignores $schema and key order', () => {
    const a = compilePolicy({ $schema: './policy.schema.json', version: 1, default: 'allow', rules: [] });
    const b = compilePolicy({ rules: [], default: 'allow', version: 1 });
    const c = compilePolicy({ version: 1, default: 'deny' });
    expect(a.revision).toBe(b.revision);
    expect(a.revision).not.toBe(c.revision);
    expect(a.revision).toMatch(/^[0-9a-f]{16}$/);
  });

  it('lists what it reads, and knows whether decisions depend on the caller', () => {
    const policy = compilePolicy(canaryPolicy);
    expect(policy.reads).toEqual(['client.capabilities', 'request.endpoint', 'request.headers', 'request.headers.x-canary']);
    expect(policy.readsFor([tool('deploy', { groups: ['canary'] })])).toEqual(['request.headers.x-canary']);
    expect(policy.callerSpecific).toBe(true);
    const byName = compilePolicy({
      version: 1,
      default: 'allow',
      enforceRequirements: false,
      rules: [{ id: 'n', effect: 'deny', when: { glob: ['x*', { var: 'primitive.name' }] } }],
    });
    expect(byName.callerSpecific).toBe(false);
  });
});

describe('compilePolicy — documents built in code', () => {
  it('turns a throwing getter into a PolicyCompileError', () => {
    const document = {
      version: 1,
      default: 'allow',
      get rules(): unknown {
        throw new Error('proxy refused');
      },
    };
    expect(() => compilePolicy(document)).toThrow(PolicyCompileError);
    expect(() => compilePolicy(document)).toThrow('could not read the document: proxy refused');
  });

  it('reports a shared condition with issues at every rule that uses it', () => {
    const when = { startswith: [{ var: 'client.name' }, 'c'] };
    const document = {
      version: 1,
      default: 'deny',
      rules: [
        { id: 'a', effect: 'allow', when },
        { id: 'b', effect: 'allow', when },
      ],
    };
    try {
      compilePolicy(document);
      expect.unreachable();
    } catch (error) {
      expect((error as PolicyCompileError).issues.map((issue) => issue.path)).toEqual(['rules[0].when.startswith', 'rules[1].when.startswith']);
    }
  });
});

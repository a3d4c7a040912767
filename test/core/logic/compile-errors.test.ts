import { describe, expect, it } from 'vitest';
import { compileLogic } from '../../../src/core/logic/compile.js';
import { PolicyCompileError, PolicyError, PolicyEvaluationError, PolicyOptionError } from '../../../src/core/errors.js';

function issuesOf(rule: unknown, options = {}) {
  try {
    compileLogic(rule, options);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyCompileError);
    expect(error).toBeInstanceOf(PolicyError);
    expect((error as Error).name).toBe('PolicyCompileError');
    return (error as PolicyCompileError).issues;
  }
  throw new Error('expected a PolicyCompileError');
}

describe('compileLogic — compile errors (docs/policy-language.md#hardening)', () => {
  it('suggests the operator a misspelling was meant to be', () => {
    expect(issuesOf({ and: [{ startswith: ['a', 'b'] }] })).toEqual([
      { code: 'unknown_operator', path: 'and[0].startswith', message: 'unknown operator "startswith" (did you mean "starts_with"?)' },
    ]);
  });

  it('reports every issue, not just the first, with dot paths in the message', () => {
    const rule = { or: [{ varr: 'a' }, { '==': [1] }, { var: 'a.__proto__.b' }] };
    try {
      compileLogic(rule);
      expect.unreachable();
    } catch (error) {
      expect((error as PolicyCompileError).issues.map((issue) => issue.code)).toEqual(['unknown_operator', 'arity', 'forbidden_path']);
      expect((error as Error).message).toBe(
        [
          'invalid rule (3 issues):',
          '  or[0].varr: unknown operator "varr" (did you mean "var"?)',
          '  or[1]["=="]: "==" takes 2 arguments, got 1',
          '  or[2].var: path segment "__proto__" is not allowed',
        ].join('\n'),
      );
    }
  });

  it('rejects log and method, which would have side effects', () => {
    expect(issuesOf({ log: 'x' })[0]!.message).toBe('operator "log" is not supported: rules have no side effects');
    expect(issuesOf({ method: ['abc', 'toUpperCase'] })[0]!.message).toMatch(/rules cannot call methods/);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('rejects the static path segment %s', (segment) => {
    expect(issuesOf({ var: `a.${segment}` })[0]!.code).toBe('forbidden_path');
    expect(issuesOf({ missing: [`${segment}.x`] })[0]!.code).toBe('forbidden_path');
  });

  it.each(['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'constructor'])('treats %s as an unknown operator, not an Object.prototype member', (name) => {
    expect(issuesOf(JSON.parse(`{"${name}": [1]}`))[0]!.code).toBe('unknown_operator');
  });

  it('rejects a __proto__ operator from JSON.parse without touching any prototype', () => {
    expect(issuesOf(JSON.parse('{"__proto__": {"polluted": true}}'))[0]!.code).toBe('unknown_operator');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops at the depth limit on 10,000-deep nesting without recursing further', () => {
    let rule: unknown = true;
    for (let depth = 0; depth < 10_000; depth++) rule = { '!': [rule] };
    const issues = issuesOf(rule);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toBe('rule is nested deeper than 64 levels');
  });

  it('stops at the node limit on a 100,000-element array', () => {
    const issues = issuesOf({ in: ['a', Array.from({ length: 100_000 }, (_, index) => `v${index}`)] });
    expect(issues).toEqual([{ code: 'limit_exceeded', path: 'in[1][9997]', message: 'rule has more than 10000 nodes' }]);
  });

  it('rejects a 5 MB string literal', () => {
    expect(issuesOf({ '==': [{ var: 'a' }, 'x'.repeat(5_000_000)] })[0]!.message).toBe('string longer than 65536 characters');
  });

  it('rejects non-finite numbers and non-JSON values passed programmatically', () => {
    expect(issuesOf({ '+': [Number.NaN, Infinity] }).map((issue) => issue.message)).toEqual(['number NaN is not finite', 'number Infinity is not finite']);
    expect(issuesOf({ '==': [() => 1, 1] })[0]!.message).toBe('function is not JSON');
  });

  it('survives a cyclic rule object with a depth error', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.and = [cyclic];
    expect(issuesOf(cyclic)[0]!.code).toBe('limit_exceeded');
  });

  it('checks arity at compile time', () => {
    expect(issuesOf({ substr: ['a'] })[0]!.message).toBe('"substr" takes 2 to 3 arguments, got 1');
    expect(issuesOf({ '!': [1, 2] })[0]!.message).toBe('"!" takes 1 argument, got 2');
    expect(issuesOf({ and: [] })[0]!.message).toBe('"and" takes at least 1 arguments, got 0');
  });

  it('takes limits as options and rejects invalid ones with a PolicyOptionError', () => {
    expect(issuesOf({ '!': [{ '!': [true] }] }, { maxDepth: 1 })[0]!.code).toBe('limit_exceeded');
    expect(() => compileLogic(true, { maxNodes: -1 })).toThrow(PolicyOptionError);
    expect(() => compileLogic(true, { maxNodes: -1 })).toThrow('option maxNodes must be a positive integer, got -1');
  });
});

describe('compileLogic — evaluation', () => {
  it('reads own properties only: inherited members resolve to null', () => {
    const rule = compileLogic({ var: { cat: ['a.', { var: 'key' }] } });
    expect(rule({ a: { b: 1 }, key: 'b' })).toBe(1);
    expect(rule({ a: {}, key: 'toString' })).toBeNull();
    expect(rule({ a: {}, key: '__proto__' })).toBeNull();
    expect(rule({ a: {}, key: 'constructor' })).toBeNull();
    expect(compileLogic({ var: 'length' })('abc')).toBe(3);
  });

  it('throws a PolicyEvaluationError when a string grows past the limit at run time', () => {
    const rule = compileLogic({ cat: [{ var: 'a' }, { var: 'a' }] }, { maxStringLength: 10 });
    expect(rule({ a: 'abc' })).toBe('abcabc');
    expect(() => rule({ a: 'abcdef' })).toThrow(PolicyEvaluationError);
  });

  it('bounds iterations over data: nested map over a large array fails instead of hanging', () => {
    const rule = compileLogic({ map: [{ var: 'items' }, { map: [{ var: '' }, { map: [{ var: '' }, 1] }] }] });
    const row = Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => 0));
    const items = Array.from({ length: 100 }, () => row);
    expect(() => rule({ items })).toThrow('evaluation exceeded its iteration budget');
  });

  it('wraps anything an operator throws in a PolicyEvaluationError', () => {
    const rule = compileLogic(
      { boom: [] },
      {
        operators: {
          boom: () => {
            throw new TypeError('bad');
          },
        },
      },
    );
    expect(() => rule({})).toThrow(PolicyEvaluationError);
    expect(() => rule({})).toThrow('evaluation failed: bad');
    const symbolic = compileLogic({ cat: [{ var: 'a' }] });
    expect(() => symbolic({ a: Symbol('s') })).toThrow(PolicyEvaluationError);
  });

  it('folds constant subtrees at compile time', () => {
    let calls = 0;
    const rule = compileLogic({ if: [{ '==': [1, 1] }, { cat: ['a', 'b'] }, { count: [] }] }, { operators: { count: () => ++calls } });
    expect(rule({})).toBe('ab');
    expect(calls).toBe(0);
  });

  it('rejects custom operators that shadow built-ins or are not functions', () => {
    expect(() => compileLogic(true, { operators: { var: () => 1 } })).toThrow('custom operator "var" would shadow a built-in operator');
    expect(() => compileLogic(true, { operators: { ok_op: 1 as never } })).toThrow('custom operator "ok_op" must be a function');
  });
});

describe('compileLogic — rules built in code', () => {
  it('turns a throwing getter into a PolicyCompileError', () => {
    const rule = {
      get and(): unknown {
        throw new Error('getter exploded');
      },
    };
    expect(() => compileLogic(rule)).toThrow(PolicyCompileError);
    expect(() => compileLogic(rule)).toThrow('could not read the rule: getter exploded');
  });
});

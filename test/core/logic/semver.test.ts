import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PolicyIssue } from '../../../src/core/errors.js';
import { compareSemVer, parseSemVer, semverOperators } from '../../../src/core/logic/ops/semver.js';
import type { CompileContext, CompiledArg, DataScope } from '../../../src/core/logic/types.js';
import { defaultLimits } from '../../../src/core/logic/types.js';

function order(a: string, b: string): number {
  return compareSemVer(parseSemVer(a)!, parseSemVer(b)!);
}

describe('parseSemVer', () => {
  it('reads full versions with prerelease and build metadata', () => {
    expect(parseSemVer('1.2.3-alpha.1+build.7')).toEqual({ major: '1', minor: '2', patch: '3', prerelease: ['alpha', '1'] });
  });

  it('strips one leading v or V, as flagd does', () => {
    expect(parseSemVer('v1.0.0')).toEqual(parseSemVer('1.0.0'));
    expect(parseSemVer('V1.0.0')).toEqual(parseSemVer('1.0.0'));
    expect(parseSemVer('vv1.0.0')).toBeNull();
  });

  it('accepts the shorthands "1" and "1.2" without prerelease or build, as Go x/mod/semver does', () => {
    expect(parseSemVer('1')).toEqual({ major: '1', minor: '0', patch: '0', prerelease: [], rank: 2 ** 32 });
    expect(parseSemVer('1.2')).toEqual({ major: '1', minor: '2', patch: '0', prerelease: [], rank: 2 ** 32 + 2 * 2 ** 16 });
    expect(parseSemVer('1.2-alpha')).toBeNull();
    expect(parseSemVer('1+build')).toBeNull();
  });

  it('reads numbers as their decimal text', () => {
    expect(parseSemVer(1.2)).toEqual(parseSemVer('1.2'));
    expect(parseSemVer(2)).toEqual(parseSemVer('2.0.0'));
    expect(parseSemVer(Number.NaN)).toBeNull();
    expect(parseSemVer(-1)).toBeNull();
  });

  it('rejects what SemVer 2.0 rejects', () => {
    for (const text of ['', 'not-a-version', '2.0.0.0', '01.0.0', '1.02.0', '1.0.0-01', '1.0.0-', '1.0.0+', '1.0.0-a..b', ' 1.0.0']) {
      expect(parseSemVer(text), text).toBeNull();
    }
    for (const value of [null, undefined, true, {}, ['1.0.0']]) expect(parseSemVer(value)).toBeNull();
  });
});

describe('compareSemVer', () => {
  it('orders by SemVer 2.0 precedence, prereleases before their release', () => {
    const ascending = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i < ascending.length; i++) {
      for (let j = 0; j < ascending.length; j++) {
        expect(order(ascending[i]!, ascending[j]!), `${ascending[i]} vs ${ascending[j]}`).toBe(Math.sign(i - j));
      }
    }
  });

  it('ignores build metadata and compares numbers past 2^53 exactly', () => {
    expect(order('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(order('9007199254740993.0.0', '9007199254740992.0.0')).toBe(1);
  });
});

// The operator itself, compiled against a minimal context (compileLogic covers it end to end).
function literal(value: unknown, path: string): CompiledArg {
  return { evaluate: () => value, isConstant: true, constant: value, raw: value, path, neverArray: !Array.isArray(value) };
}
function variable(name: string, path: string): CompiledArg {
  const read = (data: unknown) => (data as Record<string, unknown>)[name];
  return { evaluate: read, isConstant: false, constant: undefined, raw: { var: name }, path, neverArray: false };
}
function compileSemVer(args: CompiledArg[]) {
  const issues: PolicyIssue[] = [];
  const ctx: CompileContext = {
    scope: {} as DataScope,
    options: defaultLimits,
    report: (issue) => issues.push(issue),
  };
  const evaluate = semverOperators[0]!.compile(args, ctx, 'sem_ver');
  return { evaluate: (data: unknown) => evaluate(data, undefined), issues };
}

describe('sem_ver', () => {
  it('applies each of the eight operators', () => {
    const cases: [string, string, string, boolean][] = [
      ['1.2.3', '=', '1.2.3', true],
      ['1.2.3', '!=', '1.2.3', false],
      ['1.2.3', '<', '1.2.4', true],
      ['1.2.3', '<=', '1.2.3', true],
      ['2.0.0', '>', '1.9.9', true],
      ['2.0.0-rc.1', '>=', '2.0.0', false],
      ['1.9.0', '^', '1.2.3', true],
      ['1.2.0', '^', '1.2.3', true],
      ['1.3.0', '~', '1.2.3', false],
      ['1.2.0', '~', '1.2.9', true],
    ];
    for (const [actual, operator, target, expected] of cases) {
      const { evaluate } = compileSemVer([variable('v', 'v'), literal(operator, 'op'), literal(target, 't')]);
      expect(evaluate({ v: actual }), `${actual} ${operator} ${target}`).toBe(expected);
    }
  });

  it('returns null, not false, for a value that is not a version', () => {
    const { evaluate } = compileSemVer([variable('v', 'v'), literal('=', 'op'), literal('1.0.0', 't')]);
    expect(evaluate({ v: 'not-a-version' })).toBeNull();
    expect(evaluate({})).toBeNull();
    expect(evaluate({ v: '1.0.0' })).toBe(true);
  });

  it('returns null for an operator computed at run time that is not one of the eight', () => {
    const { evaluate } = compileSemVer([literal('1.0.0', 'v'), variable('op', 'op'), variable('t', 't')]);
    expect(evaluate({ op: '===', t: '1.0.0' })).toBeNull();
    expect(evaluate({ op: '=', t: '1.0.0' })).toBe(true);
  });

  it('reports a literal operator that is not one of the eight', () => {
    const { issues } = compileSemVer([variable('v', 'sem_ver[0]'), literal('===', 'sem_ver[1]'), literal('1.0.0', 'sem_ver[2]')]);
    expect(issues).toEqual([
      {
        code: 'invalid_argument',
        path: 'sem_ver[1]',
        message: 'sem_ver operator must be one of "=", "!=", "<", "<=", ">", ">=", "^", "~", got "==="',
      },
    ]);
  });

  it('reports a literal version that does not parse', () => {
    const { issues } = compileSemVer([variable('v', 'sem_ver[0]'), literal('=', 'sem_ver[1]'), literal('2.0.0.0', 'sem_ver[2]')]);
    expect(issues).toEqual([{ code: 'invalid_argument', path: 'sem_ver[2]', message: 'sem_ver needs a semantic version, got "2.0.0.0"' }]);
  });
});

describe('compareSemVer — rank fast path', () => {
  it('orders releases by rank exactly as by their digit strings', () => {
    const part = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2_000_000 }));
    fc.assert(
      fc.property(fc.tuple(part, part, part), fc.tuple(part, part, part), (left, right) => {
        const a = parseSemVer(left.join('.'))!;
        const b = parseSemVer(right.join('.'))!;
        const slow = compareSemVer({ ...a, rank: undefined }, { ...b, rank: undefined });
        expect(compareSemVer(a, b)).toBe(slow);
      }),
      { seed: 20261130, numRuns: 500 },
    );
  });
});

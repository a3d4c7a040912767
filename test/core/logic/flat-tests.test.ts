import fc from 'fast-check';
import jsonLogic from 'json-logic-js';
import { describe, expect, it } from 'vitest';
import { compileLogic, compileRule } from '../../../src/core/logic/compile.js';
import { dataScope } from '../../../src/core/logic/data-scope.js';
import { createContextScope } from '../../../src/core/policy/context-scope.js';
import { compilePredicate } from '../../../src/index.js';
import { context, primitive } from '../policy/fixtures.js';
import { propertyParameters } from '../../properties/seed.js';

// `and`/`or` over simple tests run as data (flat-tests.ts). The closures stay the reference: the
// same rule with every test wrapped in `{"if": [true, test]}` (not a test any more) compiles to
// closures only, and must give the same value, not just the same truthiness.

type Rule = Record<string, unknown>;

const left = { var: 'left' };
const value = fc.oneof(
  fc.constantFrom('a', 'ab', 'b', '', 'a/b', 'a/b/c.txt', 'x.txt', '1.2.3', '2.0.0', '1.2.3-beta', 'v1.2', '01.2'),
  fc.integer({ min: -2, max: 2 }),
  fc.constantFrom(Number.NaN, true, false, null, undefined),
  fc.array(fc.constantFrom('a', 'b', 1, null), { maxLength: 3 }),
  fc.constant({ a: 1 }),
);
const scalar = fc.oneof(fc.constantFrom('a', 'ab', 'b', '1', ''), fc.integer({ min: -2, max: 2 }), fc.constantFrom(true, false, null));
const longList = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 1];

const leaf: fc.Arbitrary<Rule> = fc.oneof(
  fc.tuple(fc.constantFrom('==', '===', '!=', '!=='), scalar).map(([op, literal]) => ({ [op]: [left, literal] })),
  fc.array(scalar, { maxLength: 4 }).map((list) => ({ in: [left, list] })),
  fc.constant({ in: [left, longList] }),
  scalar.map((needle) => ({ in: [needle, left] })),
  fc.tuple(fc.constantFrom('starts_with', 'ends_with'), fc.constantFrom('a', 'b', '', 'txt')).map(([op, affix]) => ({ [op]: [left, affix] })),
  fc
    .tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>=', '^', '~'), fc.constantFrom('1.2.3', '2.0.0', '1.2.3-beta'))
    .map(([op, target]) => ({ sem_ver: [left, op, target] })),
  fc.constantFrom('a/**', '*.txt', 'a', 'a/*/c.txt', '**').map((pattern) => ({ glob: [pattern, left] })),
  // Not tests themselves: operands a group calls.
  fc.constant({ '<': [left, 1] }),
  fc.constant({ '!!': [left] }),
);

const group: fc.Arbitrary<Rule> = fc.letrec<{ node: Rule }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('node').map((node) => ({ '!': node })),
    fc.tuple(fc.constantFrom('and', 'or'), fc.array(tie('node'), { minLength: 1, maxLength: 4 })).map(([op, nodes]) => ({ [op]: nodes })),
  ),
})).node;

const leafOperators = new Set(['==', '===', '!=', '!==', 'in', 'starts_with', 'ends_with', 'sem_ver', 'glob', '<', '!!']);

/** The rule with every leaf wrapped so that nothing in it is a flat test. */
function closuresOnly(rule: Rule): Rule {
  const [op, args] = Object.entries(rule)[0]!;
  if (leafOperators.has(op)) return { if: [true, rule] };
  if (op === '!') return { '!': closuresOnly(args as Rule) };
  return { [op]: (args as Rule[]).map(closuresOnly) };
}

const standardOnly = (rule: unknown): boolean => !/"(starts_with|ends_with|sem_ver|glob)"/.test(JSON.stringify(rule));

describe('flat tests: `and`/`or` over simple tests', () => {
  it('run as a test group for the shapes policies use', () => {
    const root = compileRule({ and: [{ in: [left, ['a']] }, { '!': { starts_with: [left, 'x'] } }] }, { scope: dataScope }).root;
    expect(root.evaluate.name).toBe('everyTest');
    expect(compileRule({ or: [{ '===': [left, 1] }, { '<': [left, 1] }] }, { scope: dataScope }).root.evaluate.name).toBe('anyTest');
    // An operand that may be an array keeps the closures (truthiness needs the array check).
    expect(compileRule({ and: [{ in: [left, ['a']] }, left] }, { scope: dataScope }).root.evaluate.name).not.toMatch(/Test$/);
  });

  it('give the value the closures give, for random groups and values of every type', () => {
    fc.assert(
      fc.property(group, value, (rule, leftValue) => {
        const data = { left: leftValue };
        const actual = compileLogic(rule)(data);
        expect(actual).toStrictEqual(compileLogic(closuresOnly(rule))(data));
        if (standardOnly(rule)) expect(actual).toStrictEqual(jsonLogic.apply(rule as jsonLogic.RulesLogic, data));
      }),
      propertyParameters(3000),
    );
  });
});

describe('context fields read by the field switch', () => {
  const sample = context({
    request: { method: 'tools/call', endpoint: '/mcp/admin', sessionId: 's-1', protocolVersion: '2025-11-25', headers: { 'X-Tenant': 'acme', 'x-beta': 'on' } },
    client: { name: 'cursor', version: '2.1.0', capabilities: { sampling: {}, elicitation: { url: {} } } },
    auth: { clientId: 'c-1', subject: 'alice@example.com', issuer: 'https://idp.example.com', scopes: ['read', 'admin'], claims: { org: 'acme', level: 3 } },
  });
  const resource = primitive(
    'resourceTemplate',
    'files',
    {
      version: '1.2.0',
      groups: ['files'],
      tags: ['beta'],
      requires: { capabilities: ['sampling'], headers: { 'x-tenant': 'acme' } },
      endpoints: ['/mcp/**'],
    },
    'file:///{path}',
  );
  const paths = [
    'request',
    'request.method',
    'request.headers',
    'request.endpoint',
    'request.sessionId',
    'request.protocolVersion',
    'client',
    'client.name',
    'client.version',
    'client.capabilities',
    'auth',
    'auth.clientId',
    'auth.subject',
    'auth.scopes',
    'auth.claims',
    'primitive',
    'primitive.kind',
    'primitive.name',
    'primitive.uri',
    'primitive.uriTemplate',
    'primitive.version',
    'primitive.groups',
    'primitive.tags',
    'primitive.requires',
    'primitive.requires.capabilities',
    'primitive.requires.headers',
    'primitive.endpoints',
    'auth.issuer',
    'tool.name',
    'request.headers.x-tenant',
    'request.headers.x-beta',
    'request.headers.x-none',
    'auth.claims.org',
    'auth.claims.level',
    'client.capabilities.elicitation.url',
    'primitive.requires.headers.x-tenant',
    'request.nope',
    'client.name.length',
  ];

  /** What a path names, walked by hand over own properties (a string's `length` too, as in json-logic-js; missing: null). */
  function walk(path: string): unknown {
    const [root, ...rest] = path.split('.');
    let current: unknown = root === 'primitive' || root === 'tool' ? resource : (sample as unknown as Record<string, unknown>)[root!];
    for (const segment of rest) {
      if (current === null || current === undefined || !Object.hasOwn(Object(current), segment)) return null;
      current = (current as Record<string, unknown>)[segment];
    }
    return current ?? null;
  }

  it.each(paths)('%s, through `var` and through a test group', (path) => {
    const read = compileRule({ var: path }, { scope: createContextScope(new Set()) }).root.evaluate;
    expect(read(sample, resource)).toStrictEqual(walk(path));
    // In a group, tests read the field through the switch, not through `var`'s closure.
    const expected = walk(path);
    const field = { var: path };
    const test = Array.isArray(expected)
      ? { in: [expected[0], field] }
      : expected !== null && typeof expected === 'object'
        ? { '!==': [field, null] }
        : { '===': [field, expected] };
    const matches = compilePredicate({ and: [test, { '!==': [field, '\u0000'] }] });
    expect(matches(sample, resource)).toBe(true);
    const missing = compilePredicate({ or: [{ '===': [field, null] }, { '===': [field, '\u0000'] }] });
    expect(missing(sample, resource)).toBe(expected === null);
  });
});

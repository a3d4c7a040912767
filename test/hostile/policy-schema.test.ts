import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError, type PolicyIssue } from '../../src/core/errors.js';
import { builtinOperators } from '../../src/core/logic/operators.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createPolicyJsonSchema } from '../../src/core/policy/schema.js';
import { joinPath } from '../../src/core/errors.js';
import { brokenPolicyDocuments } from '../../src/testing/index.js';
import { propertyParameters } from '../properties/seed.js';
import { countReads, withWhen } from './counting.js';

function issuesOf(document: unknown): readonly PolicyIssue[] {
  try {
    compilePolicy(document);
  } catch (error) {
    if (error instanceof PolicyCompileError) return error.issues;
    throw error;
  }
  return [];
}

const candidates: readonly unknown[] = [undefined, null, true, 0, 1, -1, 1.5, Number.NaN, '', 'x', 'allow', [], ['x'], {}, { a: 1 }];
const isString = (value: unknown) => typeof value === 'string';
const isLabel = (value: unknown) => isString(value) && value !== '';
const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every position of the document schema: where it is, how to put a value there, and what it accepts. */
const positions: readonly { path: string; place: (value: unknown) => unknown; accepts: (value: unknown) => boolean }[] = [
  { path: 'version', place: (value) => ({ default: 'deny', version: value }), accepts: (value) => value === 1 },
  { path: 'default', place: (value) => ({ version: 1, default: value }), accepts: (value) => value === 'allow' || value === 'deny' },
  {
    path: 'enforceRequirements',
    place: (value) => ({ version: 1, default: 'deny', enforceRequirements: value }),
    accepts: (value) => value === undefined || typeof value === 'boolean',
  },
  { path: 'description', place: (value) => ({ version: 1, default: 'deny', description: value }), accepts: (value) => value === undefined || isString(value) },
  { path: '$schema', place: (value) => ({ version: 1, default: 'deny', $schema: value }), accepts: (value) => value === undefined || isString(value) },
  {
    path: 'rules',
    place: (value) => ({ version: 1, default: 'deny', rules: value }),
    accepts: (value) => value === undefined || (Array.isArray(value) && value.length === 0),
  },
  { path: 'rules[0]', place: (value) => ({ version: 1, default: 'deny', rules: [value] }), accepts: () => false },
  ...(['id', 'effect', 'description', 'appliesTo'] as const).map((field) => ({
    path: `rules[0].${field}`,
    place: (value: unknown) => ({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', [field]: value }] }),
    accepts: (value: unknown) =>
      field === 'id'
        ? isLabel(value) && /^[A-Za-z0-9]/.test(value as string)
        : field === 'effect'
          ? value === 'allow'
          : field === 'description'
            ? value === undefined || isString(value)
            : value === undefined || (isObject(value) && Object.keys(value as object).length === 0),
  })),
  ...(['kinds', 'names', 'groups', 'tags'] as const).flatMap((field) => [
    {
      path: `rules[0].appliesTo.${field}`,
      place: (value: unknown) => ({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', appliesTo: { [field]: value } }] }),
      accepts: (value: unknown) => value === undefined || (field !== 'kinds' && Array.isArray(value) && value.length > 0 && value.every(isLabel)),
    },
    {
      path: `rules[0].appliesTo.${field}[0]`,
      place: (value: unknown) => ({ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'allow', appliesTo: { [field]: [value] } }] }),
      accepts: (value: unknown) => (field === 'kinds' ? value === 'tool' : isLabel(value)),
    },
  ]),
];

const wrongCases = positions.flatMap((position) =>
  candidates.filter((value) => !position.accepts(value) && !(value === undefined && position.path.endsWith('[0]'))).map((value) => [position.path, value, position] as const),
);

const describeValue = (value: unknown) => (value === undefined ? 'missing' : Number.isNaN(value) ? 'NaN' : JSON.stringify(value));
const isAtOrBelow = (issuePath: string, path: string) => issuePath === path || issuePath.startsWith(`${path}.`) || issuePath.startsWith(`${path}[`);

describe('compilePolicy (wrong types at every schema position)', () => {
  it.each(wrongCases.map(([path, value], index) => [path, describeValue(value), index] as const))('reports %s = %s at that path', (path, _label, index) => {
    const [, value, position] = wrongCases[index]!;
    const issues = issuesOf(position.place(value));
    expect(issues.length).toBeGreaterThan(0);
    // A wrong element is reported at the element (`rules[0]` for `rules: ["x"]`), a missing field at the field.
    expect(
      issues.every((issue) => issue.code === 'invalid_document' && isAtOrBelow(issue.path, path)),
      JSON.stringify(issues),
    ).toBe(true);
  });

  it('reports the non-JSON NaN at every numeric-looking position', () => {
    for (const position of positions) {
      if (position.accepts(Number.NaN)) continue;
      expect(
        issuesOf(position.place(Number.NaN)).some((issue) => isAtOrBelow(issue.path, position.path)),
        position.path,
      ).toBe(true);
    }
  });

  it('lists every issue of a document wrong everywhere at once, each at its path', () => {
    const document = {
      version: '1',
      default: 'permit',
      enforceRequirements: 'yes',
      description: 7,
      extra: true,
      rules: [
        { id: '', effect: 'allow', when: { startswith: [1] } },
        { id: 'b', effect: 'grant', appliesTo: { kinds: ['tools'], names: [''], groups: [1], tags: 'x', other: 1 }, when: { '!': [] } },
        { id: 'c', effect: 'deny', when: { var: 'request.headers.__proto__' } },
        { id: 'c', effect: 'deny', when: { log: 1 } },
      ],
    };
    const paths = issuesOf(document).map((issue) => issue.path);
    for (const path of [
      'version',
      'default',
      'enforceRequirements',
      'description',
      '',
      'rules[0].id',
      'rules[0].when.startswith',
      'rules[1].effect',
      'rules[1].appliesTo.kinds[0]',
      'rules[1].appliesTo.names[0]',
      'rules[1].appliesTo.groups[0]',
      'rules[1].appliesTo.tags',
      'rules[1].appliesTo',
      'rules[1].when["!"]',
      'rules[2].when.var',
      'rules[3].id',
      'rules[3].when.log',
    ]) {
      expect(paths).toContain(path);
    }
  });

  it('reports every defect of random broken documents, schema and JSON-Logic mixed', () => {
    fc.assert(
      fc.property(brokenPolicyDocuments(), (broken) => {
        const reported = issuesOf(broken.document).map(({ code, path }) => ({ code, path }));
        for (const issue of broken.expected) expect(reported, broken.defects.join('; ')).toContainEqual(issue);
      }),
      propertyParameters(500),
    );
  });
});

describe('compilePolicy (arity, duplicates, cycles)', () => {
  const operators = [...builtinOperators.values()];
  it.each(operators.filter((operator) => operator.arity.min > 0).map((operator) => [operator.name, operator.arity.min - 1] as const))(
    'rejects "%s" with %i arguments (too few)',
    (name, count) => {
      const issues = issuesOf(withWhen({ [name]: Array.from({ length: count }, () => 1) }));
      expect(issues.map((issue) => [issue.code, issue.path])).toContainEqual(['arity', joinPath('rules[0].when', name)]);
    },
  );

  it.each(operators.filter((operator) => Number.isFinite(operator.arity.max)).map((operator) => [operator.name, operator.arity.max + 1] as const))(
    'rejects "%s" with %i arguments (too many)',
    (name, count) => {
      const issues = issuesOf(withWhen({ [name]: Array.from({ length: count }, () => 1) }));
      expect(issues.map((issue) => [issue.code, issue.path])).toContainEqual(['arity', joinPath('rules[0].when', name)]);
    },
  );

  it('reports each duplicate rule id, naming the first use', () => {
    const rule = { id: 'same', effect: 'allow' };
    expect(issuesOf({ version: 1, default: 'deny', rules: [rule, { ...rule, effect: 'deny' }, rule] })).toEqual([
      { code: 'duplicate_rule_id', path: 'rules[1].id', message: 'rule id "same" is already used by rules[0]' },
      { code: 'duplicate_rule_id', path: 'rules[2].id', message: 'rule id "same" is already used by rules[0]' },
    ]);
  });

  it.each([
    [
      'through operations',
      () => {
        const node: Record<string, unknown[]> = { and: [] };
        node['and']!.push(node);
        return node;
      },
    ],
    [
      'through arrays',
      () => {
        const node: unknown[] = [];
        node.push(node);
        return { in: ['x', node] };
      },
    ],
    [
      'through object literals',
      () => {
        const node: Record<string, unknown> = { a: 1 };
        node['self'] = node;
        return node;
      },
    ],
    [
      'through a var argument',
      () => {
        const node: Record<string, unknown> = {};
        node['var'] = node;
        return node;
      },
    ],
  ])('rejects a cyclic condition %s at the depth limit, with bounded work', (_label, build) => {
    const counted = countReads(withWhen(build()));
    const issues = issuesOf(counted.value);
    expect(issues.map((issue) => issue.code)).toContain('limit_exceeded');
    expect(counted.reads()).toBeLessThan(2_000);
  });

  it('rejects a document that contains itself, with bounded work', () => {
    const document: Record<string, unknown> = { version: 1, default: 'deny' };
    document['rules'] = [document, { id: 'r', effect: 'allow', appliesTo: document }];
    const counted = countReads(document);
    expect(issuesOf(counted.value).map((issue) => issue.path)).toEqual(expect.arrayContaining(['rules[0]', 'rules[1].appliesTo']));
    expect(counted.reads()).toBeLessThan(2_000);
  });

  it('compiles the conditions of 20,000 rules of an over-long document (twice the maximum) with work linear in the rules', () => {
    const rules = Array.from({ length: 20_000 }, (_, index) => ({ id: `r${index}`, effect: 'allow', when: { '==': [{ var: 'client.name' }, 'x'] } }));
    const counted = countReads({ version: 1, default: 'deny', rules });
    expect(issuesOf(counted.value).map((issue) => issue.path)).toEqual(['rules']);
    expect(counted.reads()).toBeLessThan(30 * rules.length);
  });
});

describe('policies/policy.schema.json (what an editor checks)', () => {
  const schema = createPolicyJsonSchema();
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  /** The instance paths an editor underlines (JSON pointers), ajv's `if`/`then` bookkeeping left out. */
  const errorsOf = (document: unknown) => {
    validate(document);
    return [...new Set((validate.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => `${error.instancePath} ${error.keyword}`))];
  };

  it('accepts every shipped policy', () => {
    const directory = new URL('../../policies/', import.meta.url);
    const files = readdirSync(directory).filter((file) => file.endsWith('.json') && !/\.(cases|schema|manifest)\.json$/.test(file));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) expect({ file, errors: errorsOf(JSON.parse(readFileSync(new URL(file, directory), 'utf8'))) }).toEqual({ file, errors: [] });
  });

  it('underlines misspelt document keys and var paths where compilePolicy reports them', () => {
    expect(errorsOf({ version: 1, defualt: 'deny' })).toEqual([' required', ' additionalProperties']);
    expect(errorsOf(withWhen({ '!=': [{ var: 'request.header.x-canary' }, '1'] }))).toEqual(['/rules/0/when/!=/0/var pattern']);
    expect(errorsOf(withWhen({ in: ['admin', { var: ['auth.scope', []] }] }))).toEqual(['/rules/0/when/in/1/var/0 pattern']);
    expect(errorsOf(withWhen({ missing: ['request.headers.x-team', 'reqest.x'] }))).toEqual(['/rules/0/when/missing/1 pattern']);
    expect(errorsOf(withWhen({ missing_some: [1, ['auth.scopes.admin']] }))).toEqual(['/rules/0/when/missing_some/1/0 pattern']);
    expect(errorsOf(withWhen({ and: [true, { missing: [['client.nme']] }] }))).toEqual(['/rules/0/when/and/1/missing/0/0 pattern']);
  });

  it('leaves alone what compilePolicy accepts: bodies of array operators, computed paths, literals, warnings', () => {
    for (const when of [
      { some: [{ var: 'auth.scopes' }, { '==': [{ var: '' }, 'admin'] }] },
      { reduce: [{ var: 'primitive.tags' }, { cat: [{ var: 'accumulator' }, { var: 'current' }] }, ''] },
      { var: { cat: ['request.', 'method'] } },
      { in: [{ var: 'auth.subject' }, [{ a: { var: 'nope' }, b: 1 }]] },
      { '==': [{ var: 'request.headers.X-Canary' }, '1'] },
      { has: 'sampeling' },
    ]) {
      expect({ when, errors: errorsOf(withWhen(when)) }).toEqual({ when, errors: [] });
      expect(() => compilePolicy(withWhen(when))).not.toThrow();
    }
  });

  it('agrees with compilePolicy on which var paths are errors', () => {
    const paths = [
      'request',
      'request.method',
      'request.method.length',
      'request.method.0',
      'request.method.x',
      'request.headers',
      'request.headers.x-a',
      'request.headers.X-A',
      'request.headers.x-a.length',
      'request.headers.x-a.b',
      'request.header',
      'request.endpoint',
      'request.sessionId',
      'request.protocolVersion',
      'client',
      'client.name',
      'client.nme',
      'client.version.1',
      'client.capabilities',
      'client.capabilities.any.thing',
      'auth',
      'auth.clientId',
      'auth.subject',
      'auth.scope',
      'auth.scopes',
      'auth.scopes.0',
      'auth.scopes.01',
      'auth.scopes.length',
      'auth.scopes.length.x',
      'auth.scopes.admin',
      'auth.claims',
      'auth.claims.a.b.c',
      'primitive',
      'primitive.kind',
      'primitive.name',
      'primitive.uri',
      'primitive.uriTemplate',
      'primitive.version',
      'primitive.groups',
      'primitive.groups.2',
      'primitive.tags',
      'primitive.tag',
      'primitive.requires',
      'primitive.requires.capabilities',
      'primitive.requires.capabilities.0',
      'primitive.requires.headers',
      'primitive.requires.headers.x-b',
      'primitive.requires.header',
      'primitive.endpoints',
      'tool.name',
      'tool.nam',
      'reqest',
      'request.',
    ];
    for (const path of paths) {
      const rejected = issuesOf(withWhen({ var: path })).length > 0;
      expect({ path, schemaRejects: errorsOf(withWhen({ var: path })).length > 0 }).toEqual({ path, schemaRejects: rejected });
    }
  });
});

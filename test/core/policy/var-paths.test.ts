import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError, PolicyOptionError, type PolicyIssue } from '../../../src/core/errors.js';
import { compileLogic } from '../../../src/core/logic/compile.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { compilePredicate } from '../../../src/core/policy/predicate.js';
import { countReads } from '../../hostile/counting.js';
import { context, tool } from './fixtures.js';

// docs/policy-language.md, "Checks": literal paths below a `var` root are checked against the
// context's shape when a policy compiles.

const withWhen = (...conditions: unknown[]) => ({
  version: 1,
  default: 'allow',
  rules: conditions.map((when, index) => ({ id: `r${index}`, effect: 'deny', when })),
});

function issuesOf(document: unknown, options: { strict?: boolean } = {}): readonly PolicyIssue[] {
  try {
    compilePolicy(document, options);
  } catch (error) {
    if (error instanceof PolicyCompileError) return error.issues;
    throw error;
  }
  return [];
}

const capabilityList = 'MCP clients declare sampling, elicitation, roots, tasks, experimental and extensions.*';

describe('compilePolicy (var paths below the root)', () => {
  it.each([
    [{ '!=': [{ var: 'request.header.x-canary' }, '1'] }, 'rules[0].when["!="][0].var', 'unknown field "header" under "request" (did you mean "headers"?)'],
    [{ in: ['admin', { var: 'auth.scope' }] }, 'rules[0].when.in[1].var', 'unknown field "scope" under "auth" (did you mean "scopes"?)'],
    [{ var: 'client.nmae' }, 'rules[0].when.var', 'unknown field "nmae" under "client" (did you mean "name"?)'],
    [{ var: 'tool.group' }, 'rules[0].when.var', 'unknown field "group" under "tool" (did you mean "groups"?)'],
    [{ var: 'primitive.requires.capability' }, 'rules[0].when.var', 'unknown field "capability" under "primitive.requires" (did you mean "capabilities"?)'],
    [{ var: 'request.colour' }, 'rules[0].when.var', 'unknown field "colour" under "request"; known fields: method, headers, endpoint, sessionId, protocolVersion'],
    [{ var: 'auth.scopes.admin' }, 'rules[0].when.var', '"auth.scopes" is a list: it has no field "admin" (test membership with {"in": ["admin", {"var": "auth.scopes"}]})'],
    [{ var: 'client.name.first' }, 'rules[0].when.var', '"client.name" is a string: it has no field "first"'],
    [{ var: 'request.headers.x-team.id' }, 'rules[0].when.var', '"request.headers.x-team" is a string: it has no field "id"'],
    [{ var: 'primitive.tags.length.x' }, 'rules[0].when.var', '"primitive.tags.length" is a number: it has no field "x"'],
    [{ var: ['auth.subjct', 'anonymous'] }, 'rules[0].when.var[0]', 'unknown field "subjct" under "auth" (did you mean "subject"?)'],
    [{ missing: ['request.headrs.x-team', 'auth.claims.org'] }, 'rules[0].when.missing[0]', 'unknown field "headrs" under "request" (did you mean "headers"?)'],
    [{ missing: [['auth.claims.org', 'auth.clientid']] }, 'rules[0].when.missing[0][1]', 'unknown field "clientid" under "auth" (did you mean "clientId"?)'],
    [{ missing: 'client.verison' }, 'rules[0].when.missing', 'unknown field "verison" under "client" (did you mean "version"?)'],
    [{ missing_some: [1, ['client.name', 'client.nme']] }, 'rules[0].when.missing_some[1][1]', 'unknown field "nme" under "client" (did you mean "name"?)'],
  ])('rejects %j at its path with a suggestion', (when, path, message) => {
    expect(issuesOf(withWhen(when))).toEqual([{ code: 'unknown_field', path, message }]);
  });

  it('warns about an upper-case header name, which never matches', () => {
    const policy = compilePolicy(withWhen({ '==': [{ var: 'request.headers.X-Canary' }, '1'] }));
    expect(policy.warnings).toEqual([
      {
        code: 'header_case',
        path: 'rules[0].when["=="][0].var',
        message: 'header "X-Canary" never matches: header names are lower-cased (did you mean "x-canary"?)',
        severity: 'warning',
      },
    ]);
    // The warning is right: the header is there, the rule never sees it.
    expect(policy.evaluate(context({ request: { headers: { 'X-Canary': '1' } } }), tool('t'))).toBe(true);
  });

  it('warns about capability names outside ClientCapabilities, in var, has and has_all', () => {
    const policy = compilePolicy(
      withWhen(
        { has: 'sampeling' },
        { var: 'client.capabilities.elicitaton.url' },
        { has_all: ['sampling', 'rots'] },
        { has_all: [['roots', 'task']] },
        { has: ['sampling.tools'] },
      ),
    );
    expect(policy.warnings.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      `rules[0].when.has: unknown client capability "sampeling" (did you mean "sampling"?); ${capabilityList}`,
      `rules[1].when.var: unknown client capability "elicitaton" (did you mean "elicitation"?); ${capabilityList}`,
      `rules[2].when.has_all[1]: unknown client capability "rots" (did you mean "roots"?); ${capabilityList}`,
      `rules[3].when.has_all[0][1]: unknown client capability "task" (did you mean "tasks"?); ${capabilityList}`,
    ]);
    expect(policy.warnings.every((issue) => issue.code === 'unknown_capability' && issue.severity === 'warning')).toBe(true);
  });

  it('makes warnings errors with strict: true', () => {
    const document = withWhen({ has: 'sampeling' }, { var: 'request.headers.X-Team' });
    expect(issuesOf(document)).toEqual([]);
    expect(issuesOf(document, { strict: true })).toEqual([
      {
        code: 'unknown_capability',
        path: 'rules[0].when.has',
        message: `unknown client capability "sampeling" (did you mean "sampling"?); ${capabilityList}`,
        severity: 'error',
      },
      { code: 'header_case', path: 'rules[1].when.var', message: 'header "X-Team" never matches: header names are lower-cased (did you mean "x-team"?)', severity: 'error' },
    ]);
  });

  it('rejects a strict option that is not a boolean', () => {
    expect(() => compilePolicy(withWhen(true), { strict: 'yes' as unknown as boolean })).toThrow(new PolicyOptionError('option strict must be a boolean, got "yes"'));
  });

  it('lists path errors in document order among the other issues of the rules', () => {
    const issues = issuesOf(withWhen({ var: 'auth.scope' }, { startswith: [{ var: 'request.endpoint' }, '/a'] }));
    expect(issues.map((issue) => issue.path)).toEqual(['rules[0].when.var', 'rules[1].when.startswith']);
  });

  it('checks the rules of a document that also has schema problems', () => {
    const issues = issuesOf({ version: 1, default: 'maybe', rules: [{ id: 'r', effect: 'deny', when: { var: 'auth.scope' } }] });
    expect(issues.map((issue) => issue.path)).toEqual(['default', 'rules[0].when.var']);
  });

  it('accepts every documented field, the free-form maps, indexes and lengths', () => {
    const sound = [
      'request',
      'request.method',
      'request.headers',
      'request.headers.x-canary',
      'request.headers.x-canary.length',
      'request.endpoint',
      'request.sessionId',
      'request.protocolVersion',
      'client',
      'client.name',
      'client.version',
      'client.capabilities',
      'client.capabilities.sampling',
      'client.capabilities.elicitation.url',
      'client.capabilities.extensions.com.example/report-export',
      'client.capabilities.experimental.anything',
      'client.capabilities.roots.listChanged',
      'client.capabilities.tasks',
      'auth',
      'auth.clientId',
      'auth.subject',
      'auth.scopes',
      'auth.scopes.0',
      'auth.scopes.length',
      'auth.scopes.0.length',
      'auth.claims',
      'auth.claims.org.admin',
      'auth.claims.Any-Case',
      'primitive',
      'primitive.kind',
      'primitive.name',
      'primitive.uri',
      'primitive.uriTemplate',
      'primitive.version',
      'primitive.groups',
      'primitive.groups.1',
      'primitive.tags',
      'primitive.requires',
      'primitive.requires.capabilities',
      'primitive.requires.capabilities.0',
      'primitive.requires.headers',
      'primitive.requires.headers.x-team',
      'primitive.endpoints',
      'tool.name',
    ];
    const policy = compilePolicy(withWhen(...sound.map((path) => ({ var: path }))));
    expect(policy.warnings).toEqual([]);
  });

  it('accepts computed paths, paths inside array bodies, has of another value and object literals', () => {
    const policy = compilePolicy(
      withWhen(
        { var: { cat: ['request.', 'nope'] } },
        { var: [{ var: 'auth.claims.field' }, 'x'] },
        { some: [{ var: 'auth.scopes' }, { '==': [{ var: 'whatever.X' }, 1] }] },
        // Items of claims may well have a `request` or `auth` field of their own.
        { all: [{ var: 'auth.claims.grants' }, { '==': [{ var: 'request.kind' }, { var: 'auth.level' }] }] },
        { reduce: [{ var: 'primitive.tags' }, { cat: [{ var: 'accumulator' }, { var: 'current.Name' }] }, ''] },
        { has: [{ var: 'auth.claims' }, 'sampeling'] },
        { has_all: [{ var: 'auth.claims' }, ['org', 'Team']] },
        { missing: { merge: [['auth.claims.x'], ['request.nope']] } },
        { in: [{ var: 'auth.subject' }, [{ a: { var: 'request.nope' }, b: 1 }]] },
      ),
    );
    expect(policy.warnings).toEqual([]);
  });

  it('still checks the source of an array operator, and bodies nested in other arguments', () => {
    const issues = issuesOf(withWhen({ some: [{ var: 'auth.scope' }, { var: '' }] }, { reduce: [[], { var: 'current' }, { var: 'client.nam' }] }));
    expect(issues.map(({ path, message }) => `${path}: ${message}`)).toEqual([
      'rules[0].when.some[0].var: unknown field "scope" under "auth" (did you mean "scopes"?)',
      'rules[1].when.reduce[2].var: unknown field "nam" under "client" (did you mean "name"?)',
    ]);
  });

  it('reports an unknown root once, as the compiler does (no second issue from the shape check)', () => {
    expect(issuesOf(withWhen({ var: 'reqest.header' }))).toEqual([
      {
        code: 'invalid_argument',
        path: 'rules[0].when.var',
        message: 'unknown var root "reqest" (did you mean "request"?); paths start with request, client, auth, primitive, tool',
      },
    ]);
  });

  it('re-paths the findings of a condition shared by several rules', () => {
    const when = { var: 'auth.scope' };
    const issues = issuesOf({
      version: 1,
      default: 'allow',
      rules: [
        { id: 'a', effect: 'deny', when },
        { id: 'b', effect: 'deny', when },
      ],
    });
    expect(issues.map((issue) => issue.path)).toEqual(['rules[0].when.var', 'rules[1].when.var']);
  });

  it('walks a condition shared by 200 rules once (work bounded by the document, not the sharing)', () => {
    const when = { and: Array.from({ length: 300 }, (_, index) => ({ '==': [{ var: 'auth.claims.x' }, index] })) };
    const readsToCompile = (count: number) => {
      const counted = countReads({ version: 1, default: 'deny', rules: Array.from({ length: count }, (_, index) => ({ id: `r${index}`, effect: 'allow', when })) });
      compilePolicy(counted.value);
      return counted.reads();
    };
    expect(readsToCompile(200)).toBeLessThan(readsToCompile(1) * 2);
  });

  it('abbreviates a long hostile segment in its message', () => {
    const [issue] = issuesOf(withWhen({ var: `request.${'k'.repeat(1_000)}` }));
    expect(issue?.message).toBe(`unknown field "${'k'.repeat(32)}…(1000 characters)" under "request"; known fields: method, headers, endpoint, sessionId, protocolVersion`);
  });

  it('leaves a path over the string limit to the compiler (one issue)', () => {
    expect(issuesOf(withWhen({ var: `request.${'k'.repeat(70_000)}` })).map((issue) => issue.message)).toEqual(['string longer than 65536 characters']);
  });

  it('walks a deeply nested hostile rule without overflowing the stack', () => {
    let when: unknown = { var: 'auth.scope' };
    for (let depth = 0; depth < 100_000; depth++) when = { '!': [when] };
    expect(issuesOf(withWhen(when)).map((issue) => issue.code)).toEqual(['limit_exceeded']);
  });

  it('does not check plain compileLogic, whose data is arbitrary, nor compilePredicate', () => {
    expect(compileLogic({ var: 'request.header.x' })({ request: { header: { x: 1 } } })).toBe(1);
    expect(() => compilePredicate({ var: 'auth.scope' })).not.toThrow();
  });

  it('gives the messages docs/policy-language.md shows in its Checks table', () => {
    const docs = readFileSync(new URL('../../../docs/policy-language.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Checks'), docs.indexOf('## Truthiness'));
    const rows = [...section.matchAll(/^\| (.+?) \| (error|warning) \| `(.+)` \|$/gm)];
    expect(rows.length).toBe(6);
    for (const [, cell, severity, message] of rows) {
      for (const [, code] of cell!.matchAll(/`([^`]+)`/g)) {
        const when = code!.startsWith('{') ? JSON.parse(code!) : { var: code };
        const [issue] = [...issuesOf(withWhen(when)), ...(severity === 'warning' ? compilePolicy(withWhen(when)).warnings : [])];
        expect({ code, message: issue?.message, severity: issue?.severity ?? 'error' }).toEqual({ code, message, severity });
      }
    }
  });

  it('finds no error and no warning in any shipped policy', () => {
    const directory = new URL('../../../policies/', import.meta.url);
    const files = readdirSync(directory).filter((file) => file.endsWith('.json') && !/\.(cases|schema|manifest)\.json$/.test(file));
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      const policy = compilePolicy(JSON.parse(readFileSync(new URL(file, directory), 'utf8')), { strict: true, source: file });
      expect({ file, warnings: policy.warnings }).toEqual({ file, warnings: [] });
    }
  });
});

describe('compilePolicy (unknown document keys)', () => {
  it.each([
    [{ version: 1, defualt: 'deny' }, '', 'Unrecognized key: "defualt" (did you mean "default"?)'],
    [{ version: 1, default: 'deny', rule: [] }, '', 'Unrecognized key: "rule" (did you mean "rules"?)'],
    [
      { version: 1, default: 'deny', rules: [{ id: 'r', effect: 'deny', appliesTo: { group: ['beta'] } }] },
      'rules[0].appliesTo',
      'Unrecognized key: "group" (did you mean "groups"?)',
    ],
    [{ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'deny', whn: {} }] }, 'rules[0]', 'Unrecognized key: "whn" (did you mean "when"?)'],
    [{ version: 1, default: 'deny', rules: [{ id: 'r', effect: 'deny', extra: 1, efect: 'x' }] }, 'rules[0]', 'Unrecognized keys: "extra", "efect" (did you mean "effect"?)'],
    [{ version: 1, default: 'deny', colour: 'red' }, '', 'Unrecognized key: "colour"'],
  ])('names the key meant for %j', (document, path, message) => {
    expect(issuesOf(document)).toContainEqual({ code: 'invalid_document', path, message });
  });
});

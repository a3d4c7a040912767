import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPolicyJsonSchema } from '../../src/index.js';
import { json, runInRepository, runWith } from './memory-io.js';

const validPolicy = json({ version: 1, default: 'allow', rules: [{ id: 'no-canary', effect: 'deny', appliesTo: { groups: ['canary'] } }] });

describe('mcp-gate validate', () => {
  it('prints "FILE: valid" with the rule count and revision, and exits 0', async () => {
    const result = await runWith(['validate', 'policy.json'], { 'policy.json': validPolicy });
    expect(result).toEqual({ code: 0, stdout: expect.stringMatching(/^policy\.json: valid \(1 rule, revision [0-9a-f]{16}\)\n$/), stderr: '' });
  });

  it('lists every issue of a document as FILE: PATH: MESSAGE and exits 1', async () => {
    const document = json({ version: 2, default: 'maybe', rules: [{ id: 'ok', effect: 'deny', extra: true }] });
    const result = await runWith(['validate', 'policies/bad.json'], { 'policies/bad.json': document });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'policies/bad.json: version: Invalid input: expected 1',
        'policies/bad.json: default: Invalid option: expected one of "allow"|"deny"',
        'policies/bad.json: rules[0]: Unrecognized key: "extra"',
        '',
      ].join('\n'),
    );
  });

  it('lists every rule issue with its dot path', async () => {
    const document = json({
      version: 1,
      default: 'allow',
      rules: [
        { id: 'x', effect: 'deny', when: { startswith: [{ var: 'request.endpoint' }, '/a'] } },
        { id: 'x', effect: 'allow', when: { var: 'reqest.headers' } },
      ],
    });
    const result = await runWith(['validate', 'bad.json'], { 'bad.json': document });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'bad.json: rules[0].when.startswith: unknown operator "startswith" (did you mean "starts_with"?)',
        'bad.json: rules[1].id: rule id "x" is already used by rules[0]',
        'bad.json: rules[1].when.var: unknown var root "reqest" (did you mean "request"?); paths start with request, client, auth, primitive, tool',
        '',
      ].join('\n'),
    );
  });

  it('lists var path typos with a suggestion, and misspelt keys with the key meant', async () => {
    const document = json({
      version: 1,
      defualt: 'allow',
      rules: [
        { id: 'a', effect: 'deny', appliesTo: { group: ['canary'] }, when: { '!=': [{ var: 'request.header.x-canary' }, '1'] } },
        { id: 'b', effect: 'deny', when: { in: ['admin', { var: 'auth.scope' }] } },
      ],
    });
    const result = await runWith(['validate', 'typos.json'], { 'typos.json': document });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'typos.json: default: Invalid option: expected one of "allow"|"deny"',
        'typos.json: Unrecognized key: "defualt" (did you mean "default"?)',
        'typos.json: rules[0].appliesTo: Unrecognized key: "group" (did you mean "groups"?)',
        'typos.json: rules[0].when["!="][0].var: unknown field "header" under "request" (did you mean "headers"?)',
        'typos.json: rules[1].when.in[1].var: unknown field "scope" under "auth" (did you mean "scopes"?)',
        '',
      ].join('\n'),
    );
  });

  const warned = json({
    version: 1,
    default: 'allow',
    rules: [
      { id: 'canary', effect: 'deny', when: { '!=': [{ var: 'request.headers.X-Canary' }, '1'] } },
      { id: 'sampling', effect: 'allow', when: { has: 'sampeling' } },
    ],
  });
  const warnings = [
    'warned.json: rules[0].when["!="][0].var: warning: header "X-Canary" never matches: header names are lower-cased (did you mean "x-canary"?)',
    'warned.json: rules[1].when.has: warning: unknown client capability "sampeling" (did you mean "sampling"?); MCP clients declare sampling, elicitation, roots, tasks, experimental and extensions.*',
  ];

  it('prints warnings as FILE: PATH: warning: MESSAGE and still exits 0', async () => {
    const result = await runWith(['validate', 'warned.json'], { 'warned.json': warned });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${warnings.join('\n')}\n`);
    expect(result.stdout).toMatch(/^warned\.json: valid \(2 rules, revision [0-9a-f]{16}, 2 warnings\)\n$/);
  });

  it('makes warnings errors with --strict (exit 1)', async () => {
    const result = await runWith(['validate', '--strict', 'warned.json', 'good.json'], { 'warned.json': warned, 'good.json': validPolicy });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${warnings.map((line) => line.replace(': warning: ', ': ')).join('\n')}\n`);
    expect(result.stdout).toMatch(/^good\.json: valid \(1 rule, revision [0-9a-f]{16}\)\n$/);
  });

  it('reports invalid JSON with line and column', async () => {
    const result = await runWith(['validate', 'broken.json'], { 'broken.json': '{\n  "version": 1,\n  "default": "allow"\n  "rules": []\n}\n' });
    expect(result).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^broken\.json:4:3: invalid JSON: .+\n$/) });
  });

  it('reports truncated JSON at its end', async () => {
    const result = await runWith(['validate', 'cut.json'], { 'cut.json': '{\n  "version": 1,\n  "default": ' });
    // V8 words its reasons differently across Node versions; the location is ours.
    expect(result.stderr).toMatch(/^cut\.json:3:14: invalid JSON: \S.*\n$/);
    expect(result.code).toBe(1);
  });

  it('accepts a file that starts with a byte-order mark', async () => {
    const result = await runWith(['validate', 'bom.json'], { 'bom.json': `\uFEFF${validPolicy}` });
    expect(result.code).toBe(0);
  });

  it('checks every file and exits 1 when any is invalid', async () => {
    const result = await runWith(['validate', 'good.json', 'missing.json', 'other.json'], { 'good.json': validPolicy, 'other.json': validPolicy });
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(result.stderr).toBe('missing.json: no such file\n');
  });

  it('checks a cases file as "mcp-gate test" reads it, and a manifest as "mcp-gate manifest" writes it', async () => {
    const primitive = { kind: 'tool', name: 'deploy', groups: ['canary'] };
    const result = await runWith(['validate', 'a.cases.json', 'm.json'], {
      'a.cases.json': json({ policy: './a.json', cases: [{ name: 'hidden', context: 'cursor', primitive, expect: { allowed: false } }] }),
      'm.json': json({ server: { name: 'demo' }, primitives: [primitive, { kind: 'prompt', name: 'review' }] }),
    });
    expect(result).toEqual({ code: 0, stdout: 'a.cases.json: valid cases file (1 case for a.json)\nm.json: valid manifest (2 primitives)\n', stderr: '' });
  });

  it('lists the problems of a cases file and a manifest as FILE: PATH: MESSAGE', async () => {
    const primitive = { kind: 'tool', name: 'deploy' };
    const result = await runWith(['validate', 'a.cases.json', 'm.json'], {
      'a.cases.json': json({
        policy: './a.json',
        cases: [
          { name: 'x', primitive, expect: {} },
          { name: 'x', primitive, expect: { allowed: true } },
        ],
      }),
      'm.json': json({ primitives: [primitive, { kind: 'widget', name: 'y' }] }),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'a.cases.json: cases[0].expect.allowed: Invalid input: expected boolean, received undefined',
        'm.json: primitives[1].kind: Invalid option: expected one of "tool"|"prompt"|"resource"|"resourceTemplate"',
        '',
      ].join('\n'),
    );
  });

  it('accepts the policy JSON Schema this mcp-gate generates and rejects any other JSON Schema', async () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' };
    const result = await runWith(['validate', 'policy.schema.json', 'other.schema.json'], {
      'policy.schema.json': json(createPolicyJsonSchema()),
      'other.schema.json': json(schema),
    });
    expect(result).toEqual({
      code: 1,
      stdout: 'policy.schema.json: valid JSON Schema (the policy schema of this mcp-gate)\n',
      stderr: 'other.schema.json: a JSON Schema, but not the policy schema of this mcp-gate (an out-of-date copy, or another schema)\n',
    });
  });

  it('names a file of no known kind and the kinds it expected', async () => {
    const result = await runWith(['validate', 'list.json', 'package.json'], { 'list.json': '[]\n', 'package.json': json({ name: 'x', version: '1.0.0' }) });
    const expected =
      'not a file mcp-gate knows: expected a policy ("version": 1, "default", "rules"), a cases file ("policy", "cases"), a manifest ("primitives") or a JSON Schema ("$schema" of json-schema.org)';
    expect(result).toEqual({ code: 1, stdout: '', stderr: `list.json: ${expected}\npackage.json: ${expected}\n` });
  });

  it('checks every shipped file of policies/ as its kind (the README example), and exits 0', async () => {
    const files = readdirSync(new URL('../../policies/', import.meta.url))
      .filter((file) => file.endsWith('.json'))
      .sort();
    const result = await runInRepository(['validate', ...files.map((file) => `policies/${file}`)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const kinds = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => /^policies\/[\w.-]+: valid (cases file|manifest|JSON Schema|\()/.exec(line)?.[1]);
    expect(kinds.filter((kind) => kind === '(')).toHaveLength(7);
    expect(kinds.filter((kind) => kind === 'cases file')).toHaveLength(7);
    expect(kinds.filter((kind) => kind === 'manifest')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'JSON Schema')).toHaveLength(1);
    expect(kinds).toHaveLength(files.length);
  });

  it('still names a cases file or a manifest given where a policy belongs', async () => {
    const result = await runWith(['explain', '--policy', 'a.cases.json', '--manifest', 'm.json'], {
      'a.cases.json': json({ policy: './a.json', cases: [] }),
      'm.json': json({ primitives: [] }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('a.cases.json: this is a cases file, not a policy (run it with "mcp-gate test")\n');
  });

  it('exits 2 when no file is given', async () => {
    const result = await runWith(['validate']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate validate: no files given; see "mcp-gate validate --help"\n' });
  });

  it('accepts every shipped policy, even with --strict', async () => {
    const files = ['canary-by-header', 'beta-group', 'capability-gating', 'endpoint-scoped', 'version-routing', 'percentage-rollout', 'demo'];
    const result = await runInRepository(['validate', '--strict', ...files.map((name) => `policies/${name}.json`)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(files.length);
  });
  describe('--json', () => {
    /** The one JSON document on stdout, checked to be exactly what JSON.stringify(…, null, 2) prints. */
    function parseOutput(stdout: string): unknown {
      const parsed: unknown = JSON.parse(stdout);
      expect(stdout).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
      return parsed;
    }
    const revision = expect.stringMatching(/^[0-9a-f]{16}$/);

    it('prints a valid policy with its revision and rule count (exit 0)', async () => {
      const result = await runWith(['validate', '--json', 'policy.json'], { 'policy.json': validPolicy });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [{ file: 'policy.json', kind: 'policy', valid: true, revision, rules: 1, issues: [] }],
        valid: true,
      });
    });

    it('prints the issues of an invalid policy with their codes, and nothing on stderr (exit 1)', async () => {
      const document = json({
        version: 1,
        default: 'allow',
        rules: [
          { id: 'x', effect: 'deny' },
          { id: 'x', effect: 'deny', when: { startswith: ['a', 'b'] } },
        ],
      });
      const result = await runWith(['validate', '--json', 'bad.json', 'policy.json'], { 'bad.json': document, 'policy.json': validPolicy });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [
          {
            file: 'bad.json',
            kind: 'policy',
            valid: false,
            issues: [
              { path: 'rules[1].id', message: 'rule id "x" is already used by rules[0]', code: 'duplicate_rule_id', severity: 'error' },
              { path: 'rules[1].when.startswith', message: 'unknown operator "startswith" (did you mean "starts_with"?)', code: 'unknown_operator', severity: 'error' },
            ],
          },
          { file: 'policy.json', kind: 'policy', valid: true, revision, rules: 1, issues: [] },
        ],
        valid: false,
      });
    });

    const warningIssues = [
      {
        path: 'rules[0].when["!="][0].var',
        message: 'header "X-Canary" never matches: header names are lower-cased (did you mean "x-canary"?)',
        code: 'header_case',
      },
      {
        path: 'rules[1].when.has',
        message: 'unknown client capability "sampeling" (did you mean "sampling"?); MCP clients declare sampling, elicitation, roots, tasks, experimental and extensions.*',
        code: 'unknown_capability',
      },
    ];

    it('prints warnings as issues of severity "warning" of a valid file (exit 0)', async () => {
      const result = await runWith(['validate', '--json', 'warned.json'], { 'warned.json': warned });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [{ file: 'warned.json', kind: 'policy', valid: true, revision, rules: 2, issues: warningIssues.map((issue) => ({ ...issue, severity: 'warning' })) }],
        valid: true,
      });
    });

    it('makes warnings issues of severity "error" of an invalid file with --strict (exit 1)', async () => {
      const result = await runWith(['validate', '--json', '--strict', 'warned.json'], { 'warned.json': warned });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [{ file: 'warned.json', kind: 'policy', valid: false, issues: warningIssues.map((issue) => ({ ...issue, severity: 'error' })) }],
        valid: false,
      });
    });

    it('prints a cases file with its case count and a manifest with its primitive count', async () => {
      const primitive = { kind: 'tool', name: 'deploy', groups: ['canary'] };
      const result = await runWith(['validate', '--json', 'a.cases.json', 'm.json'], {
        'a.cases.json': json({ policy: './a.json', cases: [{ name: 'hidden', context: 'cursor', primitive, expect: { allowed: false } }] }),
        'm.json': json({ server: { name: 'demo' }, primitives: [primitive, { kind: 'prompt', name: 'review' }] }),
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [
          { file: 'a.cases.json', kind: 'cases', valid: true, cases: 1, issues: [] },
          { file: 'm.json', kind: 'manifest', valid: true, primitives: 2, issues: [] },
        ],
        valid: true,
      });
    });

    it("keeps the paths of a cases file's issues; a manifest's problems are one issue of the whole file", async () => {
      const primitive = { kind: 'tool', name: 'deploy' };
      const result = await runWith(['validate', '--json', 'a.cases.json', 'm.json'], {
        'a.cases.json': json({
          policy: './a.json',
          cases: [
            { name: 'x', primitive, expect: { allowed: true } },
            { name: 'x', primitive, expect: { allowed: true } },
          ],
        }),
        'm.json': json({ primitives: [primitive, { kind: 'widget', name: 'y' }] }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [
          { file: 'a.cases.json', kind: 'cases', valid: false, issues: [{ path: 'cases[1].name', message: 'case name "x" is already used by cases[0]', severity: 'error' }] },
          {
            file: 'm.json',
            kind: 'manifest',
            valid: false,
            issues: [{ path: '', message: 'primitives[1].kind: Invalid option: expected one of "tool"|"prompt"|"resource"|"resourceTemplate"', severity: 'error' }],
          },
        ],
        valid: false,
      });
    });

    it('prints an unknown file, invalid JSON and a missing file with kind null and the message as one issue', async () => {
      const result = await runWith(['validate', '--json', 'package.json', 'broken.json', 'missing.json'], { 'package.json': json({ name: 'x' }), 'broken.json': '{"a":' });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      const unknown =
        'not a file mcp-gate knows: expected a policy ("version": 1, "default", "rules"), a cases file ("policy", "cases"), a manifest ("primitives") or a JSON Schema ("$schema" of json-schema.org)';
      expect(parseOutput(result.stdout)).toStrictEqual({
        files: [
          { file: 'package.json', kind: null, valid: false, issues: [{ path: '', message: unknown, severity: 'error' }] },
          { file: 'broken.json', kind: null, valid: false, issues: [{ path: '', message: '1:6: invalid JSON: Unexpected end of JSON input', severity: 'error' }] },
          { file: 'missing.json', kind: null, valid: false, issues: [{ path: '', message: 'no such file', severity: 'error' }] },
        ],
        valid: false,
      });
    });

    it('still reports usage errors on stderr (exit 2)', async () => {
      const result = await runWith(['validate', '--json']);
      expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate validate: no files given; see "mcp-gate validate --help"\n' });
    });
  });
});

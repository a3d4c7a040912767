import { describe, expect, it } from 'vitest';
import { json, runInRepository, runWith } from './memory-io.js';

const policy = json({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary-needs-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] } }],
});
const canary = { kind: 'tool', name: 'deploy_preview', groups: ['canary'] };

function casesFile(cases: unknown[], policyPath = '../policies/canary.json'): string {
  return json({ policy: policyPath, cases });
}

describe('mcp-gate test', () => {
  it('prints only the summary when every case passes (exit 0)', async () => {
    const cases = casesFile([
      { name: 'hidden without the header', context: 'cursor', primitive: canary, expect: { allowed: false, reason: 'rule', ruleId: 'canary-needs-header' } },
      {
        name: 'visible with the header',
        context: { profile: 'cursor', request: { headers: { 'x-canary': '1' } } },
        primitive: canary,
        expect: { allowed: true, reason: 'default' },
      },
    ]);
    const result = await runWith(['test', 'cases/canary.cases.json'], { 'policies/canary.json': policy, 'cases/canary.cases.json': cases });
    expect(result).toEqual({ code: 0, stdout: '2 passed, 0 failed\n', stderr: '' });
  });

  it('prints passing cases too with --verbose', async () => {
    const cases = casesFile([{ name: 'plain tool', primitive: { kind: 'tool', name: 'search' }, expect: { allowed: true } }], 'policy.json');
    const result = await runWith(['test', '--verbose', 'a.cases.json'], { 'policy.json': policy, 'a.cases.json': cases });
    expect(result.stdout).toBe('PASS a.cases.json: plain tool\n1 passed, 0 failed\n');
  });

  it('prints a line per failing case with expected and actual decision (exit 1)', async () => {
    const cases = casesFile([
      { name: 'passes', context: 'cursor', primitive: canary, expect: { allowed: false } },
      { name: 'expects the wrong outcome', context: 'cursor', primitive: canary, expect: { allowed: true } },
      {
        name: 'expects the wrong rule',
        context: { request: { headers: { 'x-canary': '1' } } },
        primitive: canary,
        expect: { allowed: true, reason: 'rule', ruleId: 'other' },
      },
      {
        name: 'misses a requirement',
        context: 'claude-code',
        primitive: { kind: 'tool', name: 'summarize', requires: { capabilities: ['sampling'] } },
        expect: { allowed: true },
      },
      { name: 'names an unknown profile', context: 'curser', primitive: canary, expect: { allowed: false } },
    ]);
    const result = await runWith(['test', 'cases/canary.cases.json'], { 'policies/canary.json': policy, 'cases/canary.cases.json': cases });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'FAIL cases/canary.cases.json: expects the wrong outcome: expected allowed, got denied by rule "canary-needs-header"',
        'FAIL cases/canary.cases.json: expects the wrong rule: expected allowed by rule "other", got allowed by default',
        'FAIL cases/canary.cases.json: misses a requirement: expected allowed, got denied by requirement (requires client capability "sampling")',
        'FAIL cases/canary.cases.json: names an unknown profile: expected denied, could not evaluate: unknown client profile "curser"; close matches: cursor-vscode (Cursor); run "mcp-gate profiles" to list all 43',
        '1 passed, 4 failed',
        '',
      ].join('\n'),
    );
  });

  it('reports broken cases files and missing policies, and counts them (exit 1)', async () => {
    const files = {
      'policy.json': policy,
      'bad.cases.json': json({ policy: 'policy.json', cases: [{ name: 'a', primitive: { kind: 'tool' }, expect: {} }] }),
      'dup.cases.json': casesFile(
        [
          { name: 'a', primitive: { kind: 'tool', name: 'b' }, expect: { allowed: true } },
          { name: 'a', primitive: { kind: 'tool', name: 'c' }, expect: { allowed: true } },
        ],
        'policy.json',
      ),
      'orphan.cases.json': casesFile([{ name: 'a', primitive: { kind: 'tool', name: 'b' }, expect: { allowed: true } }], 'missing.json'),
      'good.cases.json': casesFile([{ name: 'a', primitive: { kind: 'tool', name: 'b' }, expect: { allowed: true } }], 'policy.json'),
    };
    const result = await runWith(['test', 'bad.cases.json', 'dup.cases.json', 'orphan.cases.json', 'good.cases.json', 'none.cases.json'], files);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('1 passed, 0 failed, 4 files could not be run\n');
    expect(result.stderr).toBe(
      [
        'bad.cases.json: cases[0].primitive.name: Invalid input: expected string, received undefined',
        'bad.cases.json: cases[0].expect.allowed: Invalid input: expected boolean, received undefined',
        'dup.cases.json: cases[1].name: case name "a" is already used by cases[0]',
        'orphan.cases.json: cannot run: its policy has problems',
        'missing.json: no such file',
        'none.cases.json: no such file',
        '',
      ].join('\n'),
    );
  });

  it('reports an invalid policy with its issues', async () => {
    const files = {
      'policy.json': json({ version: 1, default: 'allow', rules: [{ id: 'r', effect: 'deny', when: { hass: 'sampling' } }] }),
      'a.cases.json': casesFile([{ name: 'a', primitive: { kind: 'tool', name: 'b' }, expect: { allowed: true } }], 'policy.json'),
    };
    const result = await runWith(['test', 'a.cases.json'], files);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('a.cases.json: cannot run: its policy has problems\npolicy.json: rules[0].when.hass: unknown operator "hass" (did you mean "has"?)\n');
  });

  it('exits 2 when no cases file is given', async () => {
    const result = await runWith(['test']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate test: no cases files given; see "mcp-gate test --help"\n' });
  });

  it('passes every shipped cases file', async () => {
    const names = ['canary-by-header', 'beta-group', 'capability-gating', 'endpoint-scoped', 'version-routing', 'percentage-rollout', 'demo'];
    const result = await runInRepository(['test', ...names.map((name) => `policies/${name}.cases.json`)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^[1-9]\d* passed, 0 failed\n$/);
  });
  describe('--json', () => {
    const denied = { allowed: false, reason: 'rule', ruleId: 'canary-needs-header', message: 'denied by rule "canary-needs-header"' };

    it('prints every case with its expected and actual decision, and the counts (exit 0)', async () => {
      const cases = casesFile([{ name: 'hidden', context: 'cursor', primitive: canary, expect: { allowed: false } }]);
      const result = await runWith(['test', '--json', 'cases/canary.cases.json'], { 'policies/canary.json': policy, 'cases/canary.cases.json': cases });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      const expected = {
        files: [{ file: 'cases/canary.cases.json', policy: 'policies/canary.json', cases: [{ name: 'hidden', passed: true, expected: { allowed: false }, actual: denied }] }],
        passed: 1,
        failed: 0,
      };
      expect(result.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    });

    it('prints failing cases, unevaluable cases and files that could not be run, nothing on stderr (exit 1)', async () => {
      const cases = casesFile(
        [
          { name: 'expects the wrong outcome', context: 'cursor', primitive: canary, expect: { allowed: true } },
          { name: 'names an unknown profile', context: 'curser', primitive: canary, expect: { allowed: false } },
        ],
        'policy.json',
      );
      const result = await runWith(['test', '--json', 'a.cases.json', 'missing.cases.json'], { 'policy.json': policy, 'a.cases.json': cases });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      const problem = 'unknown client profile "curser"; close matches: cursor-vscode (Cursor); run "mcp-gate profiles" to list all 43';
      const expected = {
        files: [
          {
            file: 'a.cases.json',
            policy: 'policy.json',
            cases: [
              { name: 'expects the wrong outcome', passed: false, expected: { allowed: true }, actual: denied },
              { name: 'names an unknown profile', passed: false, expected: { allowed: false }, actual: { problem } },
            ],
          },
          { file: 'missing.cases.json', policy: null, cases: [], error: 'missing.cases.json: no such file' },
        ],
        passed: 0,
        failed: 2,
      };
      expect(result.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    });

    it('gives a file whose policy has problems its policy and the error', async () => {
      const cases = casesFile([{ name: 'hidden', primitive: canary, expect: { allowed: false } }], 'bad.json');
      const result = await runWith(['test', '--json', 'a.cases.json'], { 'bad.json': json({ version: 1, default: 'maybe' }), 'a.cases.json': cases });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('');
      expect(JSON.parse(result.stdout)).toStrictEqual({
        files: [
          {
            file: 'a.cases.json',
            policy: 'bad.json',
            cases: [],
            error: 'a.cases.json: cannot run: its policy has problems\nbad.json: default: Invalid option: expected one of "allow"|"deny"',
          },
        ],
        passed: 0,
        failed: 0,
      });
    });
  });
});

import { describe, expect, it } from 'vitest';
import { json, runInRepository, runWith } from './memory-io.js';

const policy = json({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary-needs-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] } }],
});
const manifest = json({
  primitives: [
    { kind: 'tool', name: 'deploy_preview', groups: ['canary'] },
    { kind: 'tool', name: 'summarize', requires: { capabilities: ['sampling'] } },
  ],
});
const invariants = json({
  invariants: [
    { id: 'sampling-required', never: { and: [{ var: 'visible' }, { in: ['sampling', { var: 'primitive.requires.capabilities' }] }, { '!': { has: 'sampling' } }] } },
    {
      id: 'deploy-needs-scope',
      description: 'deploy_* needs scope deploy',
      never: { and: [{ var: 'visible' }, { glob: ['deploy_*', { var: 'primitive.name' }] }, { '!': { in: ['deploy', { var: 'auth.scopes' }] } }] },
    },
  ],
});
const files = { 'policy.json': policy, 'manifest.json': manifest, 'invariants.json': invariants };
const check = (...extra: string[]) => runWith(['check', '--policy', 'policy.json', '--manifest', 'manifest.json', ...extra], files);

describe('mcp-gate check', () => {
  it('prints each verdict, the counterexample and the explain line that confirms it; exit 1 on a refutation', async () => {
    const result = await check('--invariants', 'invariants.json');
    expect(result.stderr).toBe('');
    const revision = /revision ([0-9a-f]{16})/.exec(result.stdout)![1];
    expect(result.stdout).toBe(
      [
        `Policy:     policy.json (revision ${revision})`,
        'Primitives: 2',
        '',
        'Invariants:',
        '  proven   sampling-required',
        '  refuted  deploy-needs-scope: deploy_* needs scope deploy',
        '           counterexample: tool deploy_preview is visible (allowed by default)',
        '           for the context {"request":{"endpoint":"/mcp","headers":{"x-canary":"1"}}}',
        `           confirm: mcp-gate explain --policy policy.json --manifest manifest.json --context '{"request":{"endpoint":"/mcp","headers":{"x-canary":"1"}}}'`,
        '',
        'Lint: nothing found',
        '',
        'Failed: 1 proven, 1 refuted, 0 unknown; 0 lint errors, 0 warnings.',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(1);
  });

  it('prints a counterexample that explain --context confirms', async () => {
    const result = await check('--invariants', 'invariants.json', '--json');
    const report = JSON.parse(result.stdout) as { invariants: Array<{ status: string; counterexample?: { primitive: { name: string }; context: unknown } }>; passed: boolean };
    const refuted = report.invariants.find((verdict) => verdict.status === 'refuted')!;
    const explained = await runWith(
      ['explain', '--policy', 'policy.json', '--manifest', 'manifest.json', '--context', JSON.stringify(refuted.counterexample!.context), '--json'],
      files,
    );
    const rows = (JSON.parse(explained.stdout) as { primitives: Array<{ name: string; visible: boolean }> }).primitives;
    expect(rows.find((row) => row.name === refuted.counterexample!.primitive.name)!.visible).toBe(true);
    expect(report.passed).toBe(false);
  });

  it('exits 0 when every invariant is proven and lint finds no error', async () => {
    const only = json({ invariants: [JSON.parse(invariants).invariants[0]] });
    const result = await runWith(['check', '--policy', 'policy.json', '--manifest', 'manifest.json', '--invariants', 'only.json'], { ...files, 'only.json': only });
    expect(result.stdout).toContain('Passed: 1 proven, 0 refuted, 0 unknown; 0 lint errors, 0 warnings.');
    expect(result.code).toBe(0);
  });

  it('exits 1 on a lint error, naming the rule', async () => {
    const dead = json({
      version: 1,
      default: 'allow',
      rules: [{ id: 'dead', effect: 'deny', appliesTo: { names: ['summarize'] }, when: { and: [{ has: 'roots' }, { '!': { has: 'roots' } }] } }],
    });
    const result = await runWith(['check', '--policy', 'dead.json', '--manifest', 'manifest.json'], { ...files, 'dead.json': dead });
    expect(result.stdout).toContain('  error    condition-always-false: rule "dead": its condition is false for every context, so the rule never applies');
    expect(result.code).toBe(1);
  });

  it('reports bad invariants by file and path, and usage mistakes with exit 2', async () => {
    const bad = json({ invariants: [{ id: 'x', never: { var: 'reqest.endpoint' } }, { id: 'y' }] });
    const result = await runWith(['check', '--policy', 'policy.json', '--manifest', 'manifest.json', '--invariants', 'bad.json'], { ...files, 'bad.json': bad });
    expect(result.stderr).toBe('bad.json: invariants[1]: an invariant has exactly one of "never" and "always"\n');
    expect(result.code).toBe(1);
    const typo = await runWith(['check', '--policy', 'policy.json', '--manifest', 'manifest.json', '--invariants', 'typo.json'], {
      ...files,
      'typo.json': json({ invariants: [{ id: 'x', never: { var: 'reqest.endpoint' } }] }),
    });
    expect(typo.stderr).toBe(
      'typo.json: invariants[0].never.var: unknown var root "reqest"; invariant paths start with request, client, auth, primitive, tool, visible, decision\n',
    );
    const missing = await runWith(['check', '--manifest', 'manifest.json'], files);
    expect([missing.code, missing.stderr]).toEqual([2, 'mcp-gate check: missing --policy FILE; see "mcp-gate check --help"\n']);
  });

  it('checks a shipped policy against the demo manifest', async () => {
    const result = await runInRepository(['check', '--policy', 'policies/canary-by-header.json', '--manifest', 'policies/demo.manifest.json']);
    expect(result.stdout).toContain('Passed: 0 proven, 0 refuted, 0 unknown; 0 lint errors, 0 warnings.');
    expect(result.code).toBe(0);
  });
});

describe('invariants in the policy file', () => {
  const withInvariants = (invariantList: unknown[]) =>
    json({
      version: 1,
      default: 'allow',
      rules: [{ id: 'canary-needs-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] } }],
      invariants: invariantList,
    });
  const canaryNeedsHeader = {
    id: 'canary-needs-header',
    never: { and: [{ var: 'visible' }, { in: ['canary', { var: 'primitive.groups' }] }, { '!==': [{ var: 'request.headers.x-canary' }, '1'] }] },
  };
  const nothingHidden = { id: 'nothing-hidden', never: { '!': { var: 'visible' } } };
  const cases = json({
    policy: './policy.json',
    cases: [{ name: 'canary hidden', context: {}, primitive: { kind: 'tool', name: 'deploy', groups: ['canary'] }, expect: { allowed: false } }],
  });

  it('validate compiles them and names the file and path of a mistake', async () => {
    const good = await runWith(['validate', 'policy.json'], { 'policy.json': withInvariants([canaryNeedsHeader]) });
    expect(good.code).toBe(0);
    const bad = await runWith(['validate', 'policy.json'], { 'policy.json': withInvariants([{ id: 'x', always: { nope: [1] } }]) });
    expect(bad.stderr).toBe('policy.json: invariants[0].always.nope: unknown operator "nope" (did you mean "none"?)\n');
    expect(bad.code).toBe(1);
  });

  it('test checks them over every context for the primitives of the cases', async () => {
    const proven = await runWith(['test', 'cases.json', '--verbose'], { 'policy.json': withInvariants([canaryNeedsHeader]), 'cases.json': cases });
    expect(proven.stdout).toBe('PASS cases.json: canary hidden\nPASS cases.json: invariant "canary-needs-header" proven\n2 passed, 0 failed\n');
    expect(proven.code).toBe(0);
    const refuted = await runWith(['test', 'cases.json'], { 'policy.json': withInvariants([nothingHidden]), 'cases.json': cases });
    expect(refuted.stdout).toBe(
      'FAIL cases.json: invariant "nothing-hidden" refuted: tool deploy is hidden (denied by rule "canary-needs-header") for the context {"request":{"endpoint":"/mcp"}}\n1 passed, 1 failed\n',
    );
    expect(refuted.code).toBe(1);
  });

  it('check runs them with those of --invariants', async () => {
    const result = await runWith(['check', '--policy', 'policy.json', '--manifest', 'manifest.json'], { ...files, 'policy.json': withInvariants([canaryNeedsHeader]) });
    expect(result.stdout).toContain('  proven   canary-needs-header\n');
    expect(result.code).toBe(0);
  });
});

describe('docs/check.md', () => {
  it('shows the invariants file its examples run', async () => {
    const { readFile } = await import('node:fs/promises');
    const docs = await readFile(new URL('../../docs/check.md', import.meta.url), 'utf8');
    const block = /use as `invariants\.json`:\n\n```json\n([\s\S]*?)\n```/.exec(docs)![1]!;
    const fixture = await readFile(new URL('../docs/fixtures/invariants.json', import.meta.url), 'utf8');
    expect(JSON.parse(block)).toEqual(JSON.parse(fixture));
  });
});

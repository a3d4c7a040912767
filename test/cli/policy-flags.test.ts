import { describe, expect, it } from 'vitest';
import { json, runWith } from './memory-io.js';

// Flags inside policies on the command line: validate lists the flag keys a policy reads,
// explain decides on the flag values --context gives (a flag not given holds its default).

const policy = json({
  version: 1,
  default: 'allow',
  flags: { 'new-search': { default: false } },
  rules: [{ id: 'new-search-off', effect: 'deny', appliesTo: { names: ['new-search'] }, when: { '!': { var: 'flags.new-search' } } }],
});
const manifest = json({
  primitives: [
    { kind: 'tool', name: 'new-search' },
    { kind: 'tool', name: 'search' },
  ],
});
const files = { 'policy.json': policy, 'manifest.json': manifest };

const explain = (...extra: string[]) => runWith(['explain', '--policy', 'policy.json', '--manifest', 'manifest.json', ...extra], files);
const visibility = (stdout: string) => [...stdout.matchAll(/^tool +([\w-]+) +(yes|no) /gm)].map((match) => `${match[1]}: ${match[2]}`);

describe('flags on the command line', () => {
  it('validate lists the flag keys a policy reads', async () => {
    const result = await runWith(['validate', 'policy.json'], files);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^policy\.json: valid \(1 rule, flag new-search, revision [0-9a-f]{16}\)$/m);
    const report = JSON.parse((await runWith(['validate', '--json', 'policy.json'], files)).stdout) as { files: { flags?: string[] }[] };
    expect(report.files[0]!.flags).toEqual(['new-search']);
  });

  it('validate names a flag read without a declared default', async () => {
    const undeclared = json({ version: 1, default: 'allow', rules: [{ id: 'r', effect: 'deny', when: { var: 'flags.beta' } }] });
    const result = await runWith(['validate', 'undeclared.json'], { 'undeclared.json': undeclared });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('undeclared.json: rules[0].when.var: flag "beta" has no declared default: add "flags": {"beta": {"default": …}} to the policy');
  });

  it('test runs cases with flag values in their context (a flag not given holds its default)', async () => {
    const cases = json({
      policy: 'policy.json',
      cases: [
        { name: 'flag on', context: { flags: { 'new-search': true } }, primitive: { kind: 'tool', name: 'new-search' }, expect: { allowed: true } },
        { name: 'flag off by default', primitive: { kind: 'tool', name: 'new-search' }, expect: { allowed: false, reason: 'rule', ruleId: 'new-search-off' } },
      ],
    });
    const result = await runWith(['test', 'flags.cases.json'], { ...files, 'flags.cases.json': cases });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('explain decides on the flag values of --context, and on the declared defaults without them', async () => {
    const off = await explain();
    expect(off.stdout).toContain('Flags:    new-search=false (default)');
    expect(visibility(off.stdout)).toEqual(['new-search: no', 'search: yes']);
    const on = await explain('--context', JSON.stringify({ flags: { 'new-search': true } }));
    expect(on.stdout).toContain('Flags:    new-search=true\n');
    expect(visibility(on.stdout)).toEqual(['new-search: yes', 'search: yes']);
    const report = JSON.parse((await explain('--context', JSON.stringify({ flags: { 'new-search': true } }), '--json')).stdout) as { flags: unknown };
    expect(report.flags).toEqual({ 'new-search': true });
  });
});

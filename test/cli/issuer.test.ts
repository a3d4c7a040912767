import { describe, expect, it } from 'vitest';
import { json, runWith } from './memory-io.js';

// --issuer sets auth.issuer (a token's `iss`), as --subject sets auth.subject.

const trusted = 'https://idp.example.com';
const policy = json({
  version: 1,
  default: 'allow',
  rules: [{ id: 'trusted-issuer', effect: 'deny', appliesTo: { groups: ['admin'] }, when: { '!=': [{ var: 'auth.issuer' }, trusted] } }],
});
const newPolicy = json({ version: 1, default: 'allow', rules: [] });
const manifest = json({
  primitives: [
    { kind: 'tool', name: 'admin', groups: ['admin'] },
    { kind: 'tool', name: 'search' },
  ],
});
const files = { 'policy.json': policy, 'new.json': newPolicy, 'manifest.json': manifest };

const explain = (...extra: string[]) => runWith(['explain', '--policy', 'policy.json', '--manifest', 'manifest.json', ...extra], files);
const visibility = (stdout: string) => [...stdout.matchAll(/^tool +(\w+) +(yes|no) /gm)].map((match) => `${match[1]}: ${match[2]}`);

describe('--issuer', () => {
  it("puts the issuer into explain's context, shows it with the other auth fields, and decides by it", async () => {
    const result = await explain('--issuer', trusted, '--subject', 'alice');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Auth:     subject: alice; issuer: ${trusted}`);
    expect(visibility(result.stdout)).toEqual(['admin: yes', 'search: yes']);
    expect(visibility((await explain('--issuer', 'https://other.example.org')).stdout)).toEqual(['admin: no', 'search: yes']);
    expect(visibility((await explain()).stdout)).toEqual(['admin: no', 'search: yes']);
  });

  it('overrides auth.issuer of --context, which accepts the field too', async () => {
    const context = JSON.stringify({ auth: { issuer: 'https://other.example.org' } });
    expect(visibility((await explain('--context', context)).stdout)).toEqual(['admin: no', 'search: yes']);
    expect(visibility((await explain('--context', context, '--issuer', trusted)).stdout)).toEqual(['admin: yes', 'search: yes']);
    const json = JSON.parse((await explain('--issuer', trusted, '--json')).stdout) as { auth: unknown };
    expect(json.auth).toEqual({ issuer: trusted });
  });

  it('is one value, listed in the help of explain and diff', async () => {
    expect((await explain('--issuer', 'a', '--issuer', 'b')).stderr).toContain('option "--issuer" may be given only once');
    for (const command of ['explain', 'diff']) {
      const help = (await runWith([command, '--help'])).stdout;
      expect(help).toMatch(/^Usage: .*\[--subject ID\] \[--issuer URL\]/m);
      expect(help).toMatch(/^ {2}--issuer URL +auth\.issuer: /m);
    }
  });

  it('sets the issuer of every request diff checks', async () => {
    const result = await runWith(['diff', 'policy.json', 'new.json', '--manifest', 'manifest.json', '--client', 'cursor', '--issuer', 'https://other.example.org'], files);
    expect(result.stdout).toContain('issuer: https://other.example.org');
    expect(result.stdout).toContain('+ tool admin');
    const trustedResult = await runWith(['diff', 'policy.json', 'new.json', '--manifest', 'manifest.json', '--client', 'cursor', '--issuer', trusted], files);
    expect(trustedResult.stdout).not.toContain('tool admin');
  });
});

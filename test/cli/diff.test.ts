import { describe, expect, it } from 'vitest';
import { json, runInRepository, runWith } from './memory-io.js';

const canaryRule = { id: 'canary-needs-header', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] } };
const before = json({ version: 1, default: 'allow', rules: [canaryRule] });
const after = json({
  version: 1,
  default: 'allow',
  rules: [
    { ...canaryRule, when: { '!==': [{ var: 'request.headers.x-canary' }, 'yes'] } },
    { id: 'summarize-needs-sampling', effect: 'deny', appliesTo: { names: ['summarize'] }, when: { '!': { has: 'sampling' } } },
    { id: 'admin-only', effect: 'deny', appliesTo: { names: ['admin_*'] }, when: { '!==': [{ var: 'request.endpoint' }, '/mcp/admin'] } },
  ],
});
const manifest = json({
  primitives: [
    { kind: 'tool', name: 'search' },
    { kind: 'tool', name: 'deploy_preview', groups: ['canary'] },
    { kind: 'tool', name: 'summarize' },
    { kind: 'tool', name: 'admin_users' },
  ],
});
const files = { 'old.json': before, 'new.json': after, 'manifest.json': manifest };
const diff = (...extra: string[]) => runWith(['diff', 'old.json', 'new.json', '--manifest', 'manifest.json', ...extra], files);

describe('mcp-gate diff', () => {
  it('lists what appears and disappears per request variant for the chosen clients', async () => {
    const result = await diff('--client', 'cursor', '--client', 'vscode', '--header', 'x-canary=1', '--endpoint', '/mcp', '--endpoint', '/mcp/admin');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '- tool deploy_preview',
        '    /mcp with x-canary=1, /mcp/admin with x-canary=1: all 2 clients',
        '- tool summarize',
        '    every request variant: cursor-vscode (1 of 2 clients)',
        '- tool admin_users',
        '    /mcp, /mcp with x-canary=1: all 2 clients',
        '',
        '3 primitives change visibility (checked 2 client profiles × 4 request variants: /mcp, /mcp with x-canary=1, /mcp/admin, /mcp/admin with x-canary=1).',
        '',
      ].join('\n'),
    );
  });

  it('checks every client profile by default and names the few left out', async () => {
    const result = await diff();
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('- tool summarize');
    // Most real clients declare no sampling: the list names the ones that keep the tool.
    expect(lines[1]).toMatch(/^ {4}\/mcp: all 42 clients except (.+, )?Visual Studio Code(, .+)?$/);
    expect(lines).toContain('- tool admin_users');
    expect(result.stdout).toMatch(/\(checked 42 client profiles × 1 request variant, \/mcp\)\.\n$/);
  });

  it('says so when nothing changes', async () => {
    const result = await runWith(['diff', 'old.json', 'old.json', '--manifest', 'manifest.json'], files);
    expect(result).toEqual({ code: 0, stdout: 'No primitive appears or disappears (checked 42 client profiles × 1 request variant, /mcp).\n', stderr: '' });
  });

  it('exits 1 on changes with --exit-code, 0 without changes', async () => {
    expect((await diff('--exit-code')).code).toBe(1);
    expect((await runWith(['diff', 'old.json', 'old.json', '--manifest', 'manifest.json', '--exit-code'], files)).code).toBe(0);
  });

  it('prints the changes as JSON with --json', async () => {
    const result = await diff('--client', 'cursor', '--json');
    expect(JSON.parse(result.stdout)).toEqual({
      checked: { clients: 1, variants: [{ endpoint: '/mcp', headers: {} }] },
      changes: [
        { change: 'disappears', kind: 'tool', name: 'summarize', variants: [{ endpoint: '/mcp', headers: {}, clients: ['cursor-vscode'] }] },
        { change: 'disappears', kind: 'tool', name: 'admin_users', variants: [{ endpoint: '/mcp', headers: {}, clients: ['cursor-vscode'] }] },
      ],
    });
  });

  it('compares the served version of a versioned tool (and sees the canary rule go)', async () => {
    const shipped = await runInRepository(['diff', 'policies/canary-by-header.json', 'policies/version-routing.json', '--manifest', 'policies/demo.manifest.json', '--client', 'cursor']);
    expect(shipped.stdout).toBe(
      [
        '+ tool search@1.0.0',
        '    /mcp: cursor-vscode',
        '- tool search@2.0.0',
        '    /mcp: cursor-vscode',
        '+ tool deploy_preview',
        '    /mcp: cursor-vscode',
        '',
        '3 primitives change visibility (checked 1 client profile × 1 request variant, /mcp).',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [['diff', 'old.json', '--manifest', 'manifest.json'], 'mcp-gate diff: needs two policy files, old and new; see "mcp-gate diff --help"'],
    [['diff', 'old.json', 'new.json', 'third.json', '--manifest', 'manifest.json'], 'mcp-gate diff: unexpected argument "third.json"; see "mcp-gate diff --help"'],
    [['diff', 'old.json', 'new.json'], 'mcp-gate diff: missing --manifest FILE or --server MODULE; see "mcp-gate diff --help"'],
    [['diff', 'old.json', 'new.json', '--manifest', 'manifest.json', '--client', 'nobody'], 'mcp-gate diff: unknown client profile "nobody"; run "mcp-gate profiles" to list all 42'],
  ])('rejects a wrong command line %j (exit 2)', async (argv, message) => {
    const result = await runWith(argv, files);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('reports every broken input at once (exit 1)', async () => {
    const result = await runWith(['diff', 'old.json', 'gone.json', '--manifest', 'manifest.json'], { ...files, 'old.json': '{' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^old\.json:1:2: invalid JSON: .+\ngone\.json: no such file\n$/);
  });
});

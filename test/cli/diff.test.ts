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
    expect(lines[1]).toMatch(/^ {4}\/mcp: all 43 clients except (.+, )?Visual Studio Code(, .+)?$/);
    expect(lines).toContain('- tool admin_users');
    expect(result.stdout).toMatch(/\(checked 43 client profiles × 1 request variant, \/mcp\)\.\n$/);
  });

  it('says so when nothing changes', async () => {
    const result = await runWith(['diff', 'old.json', 'old.json', '--manifest', 'manifest.json'], files);
    expect(result).toEqual({ code: 0, stdout: 'No primitive appears or disappears (checked 43 client profiles × 1 request variant, /mcp).\n', stderr: '' });
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
    const shipped = await runInRepository([
      'diff',
      'policies/canary-by-header.json',
      'policies/version-routing.json',
      '--manifest',
      'policies/demo.manifest.json',
      '--client',
      'cursor',
    ]);
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
    [
      ['diff', 'old.json', 'new.json'],
      'mcp-gate diff: missing --manifest FILE, --server MODULE or --upstream-cmd "CMD ARGS" / --upstream-url URL; see "mcp-gate diff --help"',
    ],
    [
      ['diff', 'old.json', 'new.json', '--manifest', 'manifest.json', '--client', 'nobody'],
      'mcp-gate diff: unknown client profile "nobody"; run "mcp-gate profiles" to list all 43',
    ],
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

describe('mcp-gate diff: client and auth options', () => {
  const betaRule = { id: 'beta-scope', effect: 'deny', appliesTo: { groups: ['beta'] }, when: { '!': { in: ['beta', { var: 'auth.scopes' }] } } };
  const newClientsRule = {
    id: 'new-clients',
    effect: 'deny',
    appliesTo: { names: ['new_ui'] },
    when: { '!': { sem_ver: [{ var: ['client.version', '0.0.0'] }, '>=', '2.0.0'] } },
  };
  const authFiles = {
    'open.json': json({ version: 1, default: 'allow', rules: [] }),
    'guarded.json': json({ version: 1, default: 'allow', rules: [betaRule, newClientsRule, canaryRule] }),
    'manifest.json': json({
      primitives: [
        { kind: 'tool', name: 'insights', groups: ['beta'] },
        { kind: 'tool', name: 'new_ui' },
        { kind: 'tool', name: 'deploy_preview', groups: ['canary'] },
      ],
    }),
  };
  const diffAuth = (...extra: string[]) =>
    runWith(['diff', 'open.json', 'guarded.json', '--manifest', 'manifest.json', '--client', 'cursor', '--client', 'claude-code', ...extra], authFiles);

  it('applies the auth and client options to every request and says so in the summary', async () => {
    expect(await diffAuth()).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '- tool insights',
        '    /mcp: all 2 clients',
        '- tool new_ui',
        '    /mcp: all 2 clients',
        '- tool deploy_preview',
        '    /mcp: all 2 clients',
        '',
        '3 primitives change visibility (checked 2 client profiles × 1 request variant, /mcp).',
        '',
      ].join('\n'),
    });
    expect(await diffAuth('--scope', 'beta', '--client-version', '2.0.0', '--client-name', 'my-agent', '--subject', 'user-17')).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        '- tool deploy_preview',
        '    /mcp: all 2 clients',
        '',
        '1 primitive changes visibility (checked 2 client profiles × 1 request variant, /mcp; every request with client name: my-agent; client version: 2.0.0; scopes: beta; subject: user-17).',
        '',
      ].join('\n'),
    });
  });

  it('puts the headers of --context into every request variant, and its endpoint in place of /mcp', async () => {
    const context = JSON.stringify({ request: { endpoint: '/mcp/beta', headers: { 'X-Canary': '1' } }, auth: { scopes: ['beta'] } });
    const result = await diffAuth('--context', context, '--header', 'x-tool-version=2', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      checked: {
        clients: 2,
        variants: [
          { endpoint: '/mcp/beta', headers: { 'x-canary': '1' } },
          { endpoint: '/mcp/beta', headers: { 'x-canary': '1', 'x-tool-version': '2' } },
        ],
        context: { auth: { scopes: ['beta'] } },
      },
      changes: [
        {
          change: 'disappears',
          kind: 'tool',
          name: 'new_ui',
          variants: [
            { endpoint: '/mcp/beta', headers: { 'x-canary': '1' }, clients: ['cursor-vscode', 'claude-code'] },
            { endpoint: '/mcp/beta', headers: { 'x-canary': '1', 'x-tool-version': '2' }, clients: ['cursor-vscode', 'claude-code'] },
          ],
        },
      ],
    });
  });

  it('lets each profile override the client name of --context, but keeps its version', async () => {
    const result = await diffAuth('--context', '{"client": {"name": "ctx", "version": "2.5.0"}}');
    expect(result.stdout).not.toContain('new_ui');
    expect(result.stdout).toMatch(/\(checked 2 client profiles × 1 request variant, \/mcp; every request with client version: 2\.5\.0\)\.\n$/);
  });

  it.each([
    [
      ['--context', '{"auth": {"claims": []}}'],
      'mcp-gate diff: --context is not a RequestContextInput {request, client, auth}: auth.claims: Invalid input: expected record, received array',
    ],
    [['--claims', '1'], `mcp-gate diff: --claims must be a JSON object such as '{"org": "acme"}'`],
  ])('rejects wrong client or auth options %j (exit 2)', async (extra, message) => {
    expect(await diffAuth(...extra)).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });
});

describe('mcp-gate diff --exhaustive', () => {
  const exhaustive = (...extra: string[]) => runWith(['diff', '--exhaustive', 'old.json', 'new.json', '--manifest', 'manifest.json', ...extra], files);

  it('lists every class of callers whose view changes, per group of context paths, with a request of each', async () => {
    const result = await exhaustive();
    expect(result.stderr).toBe('');
    const revisions = [...result.stdout.matchAll(/revision ([0-9a-f]{16})/g)].map((match) => match[1]);
    expect(result.stdout).toBe(
      [
        `Old:        old.json (revision ${revisions[0]})`,
        `New:        new.json (revision ${revisions[1]})`,
        'Primitives: 4',
        '',
        'Callers told apart by request.headers.x-canary:',
        '  {"request":{"endpoint":"/mcp/admin","headers":{"x-canary":"1"}},"client":{"capabilities":{"sampling":{}}}}',
        '    - tool deploy_preview',
        '  {"request":{"endpoint":"/mcp/admin","headers":{"x-canary":"yes"}},"client":{"capabilities":{"sampling":{}}}}',
        '    + tool deploy_preview',
        '',
        'Callers told apart by client.capabilities:',
        '  {"request":{"endpoint":"/mcp/admin"}}',
        '    - tool summarize',
        '',
        'Callers told apart by request.endpoint:',
        '  {"request":{"endpoint":""},"client":{"capabilities":{"sampling":{}}}}',
        '    - tool admin_users',
        '',
        'Views change for 4 classes of callers in 3 independent groups, over every request context.',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
  });

  it('gives a request that explain decides differently under the two policies, exactly as listed', async () => {
    const report = JSON.parse((await exhaustive('--json')).stdout) as {
      groups: Array<{ classes: Array<{ context: unknown; gains: Array<{ name: string }>; loses: Array<{ name: string }> }> }>;
      exact: boolean;
    };
    expect(report.exact).toBe(true);
    const gaining = report.groups[0]!.classes.find((item) => item.gains.length > 0)!;
    const visible = async (policy: string) => {
      const explained = await runWith(['explain', '--policy', policy, '--manifest', 'manifest.json', '--context', JSON.stringify(gaining.context), '--json'], files);
      return (JSON.parse(explained.stdout) as { primitives: Array<{ name: string; visible: boolean }> }).primitives.filter((row) => row.visible).map((row) => row.name);
    };
    const before = await visible('old.json');
    const after = await visible('new.json');
    expect(after.filter((name) => !before.includes(name))).toEqual(gaining.gains.map((primitive) => primitive.name));
    expect(before.filter((name) => !after.includes(name))).toEqual([]);
  });

  it('says so when nothing changes, and exits 1 with --exit-code only when something does or cannot be ruled out', async () => {
    const same = await runWith(['diff', '--exhaustive', 'old.json', 'old.json', '--manifest', 'manifest.json', '--exit-code'], files);
    expect(same.stdout).toMatch(/\nNo caller's view changes, over every request context\.\n$/);
    expect(same.code).toBe(0);
    expect((await exhaustive('--exit-code')).code).toBe(1);
    // Arithmetic on a claim is not modelled, and none of the values tried makes the rule hold.
    const arithmetic = json({
      version: 1,
      default: 'allow',
      rules: [canaryRule, { id: 'odd', effect: 'deny', appliesTo: { names: ['search'] }, when: { '==': [{ '+': [{ var: 'auth.claims.n' }, 1] }, 3] } }],
    });
    const unknown = await runWith(['diff', '--exhaustive', 'old.json', 'arithmetic.json', '--manifest', 'manifest.json', '--exit-code', '--json'], {
      ...files,
      'arithmetic.json': arithmetic,
    });
    const report = JSON.parse(unknown.stdout) as { groups: unknown[]; exact: boolean; unknown: string[] };
    expect(report).toEqual({
      ...report,
      groups: [],
      exact: false,
      unknown: ['tool search: new rule "odd": the value of auth.claims.n flows into "+", which the analysis does not partition'],
    });
    expect(unknown.code).toBe(1);
  });

  it('refuses the options that pick requests (exit 2)', async () => {
    const result = await exhaustive('--client', 'cursor');
    expect([result.code, result.stderr]).toEqual([2, 'mcp-gate diff: --client picks requests to decide, and --exhaustive decides every request; leave one out\n']);
    expect((await exhaustive('--header', 'x-canary=1')).code).toBe(2);
  });
});

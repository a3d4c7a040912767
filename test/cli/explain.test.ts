import { describe, expect, it } from 'vitest';
import { json, runInRepository, runWith } from './memory-io.js';

const policy = json({
  version: 1,
  default: 'allow',
  rules: [
    {
      id: 'canary-needs-header',
      description: 'canary only with x-canary: 1',
      effect: 'deny',
      appliesTo: { groups: ['canary'] },
      when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] },
    },
    {
      id: 'v2-opt-in',
      effect: 'deny',
      appliesTo: { names: ['search'] },
      when: { and: [{ sem_ver: [{ var: 'primitive.version' }, '>=', '2.0.0'] }, { '!==': [{ var: 'request.headers.x-tool-version' }, '2'] }] },
    },
    { id: 'lists-only', effect: 'deny', appliesTo: { kinds: ['prompt'] }, when: { '!==': [{ var: 'request.method' }, 'prompts/list'] } },
  ],
});

const manifest = json({
  primitives: [
    { kind: 'tool', name: 'search', version: '1.0.0' },
    { kind: 'tool', name: 'search', version: '2.0.0' },
    { kind: 'tool', name: 'deploy_preview', groups: ['canary'] },
    { kind: 'tool', name: 'summarize', requires: { capabilities: ['sampling'] } },
    { kind: 'prompt', name: 'code_review' },
    { kind: 'resource', name: 'workspace', uri: 'workspace://files', requires: { capabilities: ['roots'] } },
  ],
});

const files = { 'policy.json': policy, 'manifest.json': manifest };
const explain = (...extra: string[]) => runWith(['explain', '--policy', 'policy.json', '--manifest', 'manifest.json', ...extra], files);

describe('mcp-gate explain', () => {
  it('prints every primitive with its visibility and what decided, for a real client profile', async () => {
    const result = await explain('--client', 'cursor');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        'Policy:   policy.json (revision ' + /revision ([0-9a-f]{16})/.exec(result.stdout)![1] + ')',
        'Client:   cursor-vscode (Cursor); capabilities: roots, elicitation',
        'Request:  endpoint /mcp; headers: none',
        '',
        'KIND      NAME            VERSION  VISIBLE  DECIDED BY                WHY',
        'tool      search          1.0.0    yes      default                   no rule matched; default is allow',
        'tool      search          2.0.0    no       rule v2-opt-in            denied by rule "v2-opt-in"',
        'tool      deploy_preview           no       rule canary-needs-header  canary only with x-canary: 1',
        'tool      summarize                no       requirement               requires client capability "sampling"',
        'prompt    code_review              yes      default                   no rule matched; default is allow',
        'resource  workspace                yes      default                   no rule matched; default is allow',
        '',
        '3 of 6 primitives visible.',
        '',
      ].join('\n'),
    );
  });

  it('applies headers, capabilities and the endpoint, and marks a lower allowed version as shadowed', async () => {
    const result = await explain('--capabilities', '{"sampling": {}}', '--header', 'x-canary=1', '--header', 'X-Tool-Version: 2', '--endpoint', '');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[1]).toBe('Client:   (from --capabilities); capabilities: sampling');
    expect(lines[2]).toBe('Request:  endpoint "" (stdio); headers: x-canary: 1, x-tool-version: 2');
    expect(lines[5]).toBe('tool      search          1.0.0    shadowed  default      no rule matched; default is allow; version 2.0.0 is served instead');
    expect(lines[6]).toMatch(/^tool      search          2\.0\.0    yes /);
    expect(lines[10]).toBe('resource  workspace                no        requirement  requires client capability "roots"');
  });

  it('without --client, evaluates for a client that declares no capabilities', async () => {
    const result = await explain();
    expect(result.stdout.split('\n')[1]).toBe('Client:   (no --client); capabilities: none');
    expect(result.stdout).toMatch(/^resource +workspace +no +requirement +requires client capability "roots"$/m);
    expect(result.stdout).toContain('2 of 6 primitives visible.');
  });

  it('prints the decisions as JSON with --json', async () => {
    const result = await explain('--client', 'claude-code', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, any>;
    expect(report.client).toEqual({ name: 'claude-code', capabilities: { roots: {} } });
    expect(report.request).toEqual({ endpoint: '/mcp', headers: {}, protocolVersion: '2025-06-18' });
    expect(report.primitives).toHaveLength(6);
    expect(report.primitives[3]).toEqual({
      kind: 'tool',
      name: 'summarize',
      visible: false,
      allowed: false,
      reason: 'requirement',
      message: 'requires client capability "sampling"',
    });
    expect(report.primitives[1]).toMatchObject({ name: 'search', version: '2.0.0', visible: false, reason: 'rule', ruleId: 'v2-opt-in' });
  });

  it('names close matches for an unknown client profile (exit 2)', async () => {
    const result = await explain('--client', 'curser');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mcp-gate explain: unknown client profile "curser"; close matches: cursor-vscode (Cursor); run "mcp-gate profiles" to list all 43\n',
    });
  });

  it.each([
    [['--client', 'cursor', '--capabilities', '{}'], 'mcp-gate explain: pass either --client or --capabilities, not both'],
    [['--capabilities', '[1]'], `mcp-gate explain: --capabilities must be a JSON object such as '{"sampling": {}}'`],
    [['--header', 'x-canary'], 'mcp-gate explain: --header "x-canary" must look like NAME=VALUE'],
    [['extra.json'], 'mcp-gate explain: unexpected argument "extra.json"; see "mcp-gate explain --help"'],
  ])('rejects a wrong command line %j (exit 2)', async (extra, message) => {
    const result = await explain(...extra);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('reports --capabilities that is not JSON with its position', async () => {
    const result = await explain('--capabilities', '{sampling}');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^mcp-gate explain: --capabilities:1:2: invalid JSON: /);
  });

  it.each([
    [
      ['--policy', 'policy.json'],
      'mcp-gate explain: missing --manifest FILE, --server MODULE or --upstream-cmd "CMD ARGS" / --upstream-url URL; see "mcp-gate explain --help"',
    ],
    [['--manifest', 'manifest.json'], 'mcp-gate explain: missing --policy FILE; see "mcp-gate explain --help"'],
    [['--policy', 'policy.json', '--manifest', 'manifest.json', '--server', 'server.js'], 'mcp-gate explain: pass either --manifest or --server, not both'],
    [['--policy', 'policy.json', '--manifest', 'manifest.json', '--export', 'create'], 'mcp-gate explain: --export names an export of --server MODULE; pass --server too'],
  ])('needs a policy and a manifest %j (exit 2)', async (argv, message) => {
    const result = await runWith(['explain', ...argv], files);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it('reports the problems of every input file at once (exit 1)', async () => {
    const badManifest = json({ primitives: [{ kind: 'tol', name: 'x' }] });
    const result = await runWith(['explain', '--policy', 'nope.json', '--manifest', 'bad.json'], { 'bad.json': badManifest });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'bad.json: primitives[0].kind: Invalid option: expected one of "tool"|"prompt"|"resource"|"resourceTemplate"\nnope.json: no such file\n',
    });
  });

  it('rejects a manifest that lists a primitive twice', async () => {
    const twice = json({
      primitives: [
        { kind: 'tool', name: 'a' },
        { kind: 'tool', name: 'a', version: '1' },
        { kind: 'tool', name: 'a' },
      ],
    });
    const result = await runWith(['explain', '--policy', 'policy.json', '--manifest', 'twice.json'], { ...files, 'twice.json': twice });
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'twice.json: primitives[2]: duplicate of primitives[0]\n' });
  });

  it('explains the shipped demo policy over its manifest', async () => {
    const result = await runInRepository([
      'explain',
      '--policy',
      'policies/demo.json',
      '--manifest',
      'policies/demo.manifest.json',
      '--client',
      'claude-code',
      '--endpoint',
      '/mcp/admin',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tool +admin_users +yes +default /m);
    expect(result.stdout).toMatch(/^tool +confirm_action +no +requirement +requires client capability "elicitation"$/m);
    expect(result.stdout).toContain('9 of 13 primitives visible.');
  });
});

const authPolicy = json({
  version: 1,
  default: 'allow',
  rules: [
    { id: 'beta-scope', effect: 'deny', appliesTo: { groups: ['beta'] }, when: { '!': { in: ['beta', { var: 'auth.scopes' }] } } },
    { id: 'staff-only', effect: 'deny', appliesTo: { names: ['audit'] }, when: { '!': { starts_with: [{ var: 'auth.subject' }, 'staff-'] } } },
    {
      id: 'acme-app',
      effect: 'deny',
      appliesTo: { names: ['billing'] },
      when: { or: [{ '!==': [{ var: 'auth.claims.org' }, 'acme'] }, { '!==': [{ var: 'auth.clientId' }, 'app-1'] }] },
    },
    { id: 'new-clients', effect: 'deny', appliesTo: { names: ['new_ui'] }, when: { '!': { sem_ver: [{ var: ['client.version', '0.0.0'] }, '>=', '2.0.0'] } } },
  ],
});
const authManifest = json({
  primitives: [
    { kind: 'tool', name: 'insights', groups: ['beta'] },
    { kind: 'tool', name: 'audit' },
    { kind: 'tool', name: 'billing' },
    { kind: 'tool', name: 'new_ui' },
  ],
});
const authFiles = { 'auth.json': authPolicy, 'auth-manifest.json': authManifest };
const explainAuth = (...extra: string[]) => runWith(['explain', '--policy', 'auth.json', '--manifest', 'auth-manifest.json', ...extra], authFiles);
const revisionOf = (stdout: string) => /revision ([0-9a-f]{16})/.exec(stdout)![1]!;

describe('mcp-gate explain: client and auth options', () => {
  it('without auth options, hides what auth rules guard and prints no Auth line', async () => {
    const result = await explainAuth('--client', 'cursor');
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `Policy:   auth.json (revision ${revisionOf(result.stdout)})`,
        'Client:   cursor-vscode (Cursor); capabilities: roots, elicitation',
        'Request:  endpoint /mcp; headers: none',
        '',
        'KIND  NAME      VERSION  VISIBLE  DECIDED BY        WHY',
        'tool  insights           no       rule beta-scope   denied by rule "beta-scope"',
        'tool  audit              no       rule staff-only   denied by rule "staff-only"',
        'tool  billing            no       rule acme-app     denied by rule "acme-app"',
        'tool  new_ui             no       rule new-clients  denied by rule "new-clients"',
        '',
        '0 of 4 primitives visible.',
        '',
      ].join('\n'),
    });
  });

  it('puts --scope, --subject, --client-id, --claims and --client-version into the context', async () => {
    const auth = ['--scope', 'read beta', '--scope', 'write', '--subject', 'staff-17', '--client-id', 'app-1', '--claims', '{"org": "acme"}'];
    const result = await explainAuth('--client', 'cursor', '--client-version', '2.1.0', ...auth);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `Policy:   auth.json (revision ${revisionOf(result.stdout)})`,
        'Client:   cursor-vscode (Cursor); version 2.1.0; capabilities: roots, elicitation',
        'Auth:     scopes: read, beta, write; subject: staff-17; client id: app-1; claims: {"org":"acme"}',
        'Request:  endpoint /mcp; headers: none',
        '',
        'KIND  NAME      VERSION  VISIBLE  DECIDED BY  WHY',
        'tool  insights           yes      default     no rule matched; default is allow',
        'tool  audit              yes      default     no rule matched; default is allow',
        'tool  billing            yes      default     no rule matched; default is allow',
        'tool  new_ui             yes      default     no rule matched; default is allow',
        '',
        '4 of 4 primitives visible.',
        '',
      ].join('\n'),
    });
  });

  it('compares --client-version as a version: 1.10.0 is below 2.0.0, 10.0.0 above', async () => {
    expect((await explainAuth('--client-version', '1.10.0')).stdout).toMatch(/^tool +new_ui +no +rule new-clients /m);
    expect((await explainAuth('--client-version', '10.0.0')).stdout).toMatch(/^tool +new_ui +yes +default /m);
  });

  it('--client-name replaces the name of a profile, which keeps its capabilities', async () => {
    const result = await explainAuth('--client', 'cursor', '--client-name', 'my-agent', '--scope', 'beta', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, any>;
    expect(report.client).toEqual({ name: 'my-agent', capabilities: { roots: {}, elicitation: {} } });
    expect(report.auth).toEqual({ scopes: ['beta'] });
    expect((await explainAuth('--client', 'cursor', '--client-name', 'my-agent')).stdout.split('\n')[1]).toBe(
      'Client:   my-agent (profile cursor-vscode); capabilities: roots, elicitation',
    );
    expect((await explainAuth('--client-name', 'my-agent')).stdout.split('\n')[1]).toBe('Client:   my-agent; capabilities: none');
  });

  it('--context gives the whole context; --client-version, --scope and --header override its fields', async () => {
    const context = {
      request: { headers: { 'X-Canary': '1', 'x-tool-version': '1' }, endpoint: '', method: 'tools/call' },
      client: { name: 'ctx-client', version: '1.0.0', capabilities: { sampling: {} } },
      auth: { scopes: ['beta'], subject: 'staff-2' },
    };
    const result = await explain('--context', JSON.stringify(context), '--client-version', '2.0.0', '--scope', 'read', '--header', 'x-tool-version=2');
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `Policy:   policy.json (revision ${revisionOf(result.stdout)})`,
        'Client:   ctx-client; version 2.0.0; capabilities: sampling',
        'Auth:     scopes: read; subject: staff-2',
        'Request:  endpoint "" (stdio); method tools/call; headers: x-canary: 1, x-tool-version: 2',
        '',
        'KIND      NAME            VERSION  VISIBLE   DECIDED BY       WHY',
        'tool      search          1.0.0    shadowed  default          no rule matched; default is allow; version 2.0.0 is served instead',
        'tool      search          2.0.0    yes       default          no rule matched; default is allow',
        'tool      deploy_preview           yes       default          no rule matched; default is allow',
        'tool      summarize                yes       default          no rule matched; default is allow',
        'prompt    code_review              no        rule lists-only  denied by rule "lists-only"',
        'resource  workspace                no        requirement      requires client capability "roots"',
        '',
        '3 of 6 primitives visible.',
        '',
      ].join('\n'),
    });
  });

  it('takes --context as the library does: no client.capabilities means undeclared', async () => {
    const result = await explain('--context', '{"client": {"name": "stateless"}}');
    const lines = result.stdout.split('\n');
    expect(lines[1]).toBe('Client:   stateless; capabilities: undeclared');
    expect(lines[2]).toBe('Request:  endpoint /mcp; headers: none');
    expect(result.stdout).toMatch(/^tool +summarize +no +requirement +client did not declare its capabilities; requires "sampling"$/m);
    expect((await explain('--context', '{}')).stdout.split('\n')[1]).toBe('Client:   (from --context); capabilities: undeclared');
  });

  it('joins repeated header names, including names that Object.prototype has', async () => {
    const context = '{"request": {"headers": {"Constructor": "a", "constructor": "b", "toString": "c"}}}';
    expect((await explain('--header', 'constructor=x', '--header', 'Constructor: y')).stdout.split('\n')[2]).toBe('Request:  endpoint /mcp; headers: constructor: x, y');
    expect((await explain('--context', context, '--header', 'tostring=d')).stdout.split('\n')[2]).toBe('Request:  endpoint /mcp; headers: constructor: a, b, tostring: d');
  });

  it('a --client profile overrides the client fields of --context it sets', async () => {
    const result = await explain('--context', '{"client": {"name": "x", "version": "3.0.0", "capabilities": {"sampling": {}}}}', '--client', 'cursor', '--json');
    expect((JSON.parse(result.stdout) as Record<string, any>).client).toEqual({ name: 'cursor-vscode', version: '3.0.0', capabilities: { roots: {}, elicitation: {} } });
  });

  it.each([
    [
      ['--context', '{"auth": {"scopes": "beta"}, "user": 1}'],
      'mcp-gate explain: --context is not a RequestContextInput {request, client, auth}: auth.scopes: Invalid input: expected array, received string; Unrecognized key: "user"',
    ],
    [['--context', '[1]'], 'mcp-gate explain: --context is not a RequestContextInput {request, client, auth}: Invalid input: expected object, received array'],
    [
      ['--context', '{"request": {"headers": {"x": 1}}}'],
      'mcp-gate explain: --context is not a RequestContextInput {request, client, auth}: request.headers.x: Invalid input: expected string, received number',
    ],
    [['--claims', '["org"]'], `mcp-gate explain: --claims must be a JSON object such as '{"org": "acme"}'`],
    [['--scope', ' '], 'mcp-gate explain: --scope needs a scope name, e.g. --scope beta'],
    [['--subject', 'a', '--subject', 'b'], 'mcp-gate explain: option "--subject" may be given only once'],
  ])('rejects wrong client or auth options %j (exit 2)', async (extra, message) => {
    expect(await explain(...extra)).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });

  it.each([['--context'], ['--claims']])('reports %s that is not JSON with its position (exit 2)', async (option) => {
    const result = await explain(option, '{org}');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^mcp-gate explain: ${option}:1:2: invalid JSON: [^\\n]+\\n$`));
  });
});

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
      stderr: 'mcp-gate explain: unknown client profile "curser"; close matches: cursor-vscode (Cursor); run "mcp-gate profiles" to list all 42\n',
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
    [['--policy', 'policy.json'], 'mcp-gate explain: missing --manifest FILE or --server MODULE; see "mcp-gate explain --help"'],
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
    const twice = json({ primitives: [{ kind: 'tool', name: 'a' }, { kind: 'tool', name: 'a', version: '1' }, { kind: 'tool', name: 'a' }] });
    const result = await runWith(['explain', '--policy', 'policy.json', '--manifest', 'twice.json'], { ...files, 'twice.json': twice });
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'twice.json: primitives[2]: duplicate of primitives[0]\n' });
  });

  it('explains the shipped demo policy over its manifest', async () => {
    const result = await runInRepository(['explain', '--policy', 'policies/demo.json', '--manifest', 'policies/demo.manifest.json', '--client', 'claude-code', '--endpoint', '/mcp/admin']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tool +admin_users +yes +default /m);
    expect(result.stdout).toMatch(/^tool +confirm_action +no +requirement +requires client capability "elicitation"$/m);
    expect(result.stdout).toContain('9 of 13 primitives visible.');
  });
});

// `mcp-gate test` with a source of primitives: cases name primitives by kind and name, and the
// annotations come from the source. The live source is the recording upstream (test/wire),
// spawned over stdio and annotated by its own `_meta` and the proxy tests' overlay, or served
// over Streamable HTTP on 127.0.0.1 behind a credential that --upstream-header supplies.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { json, runInRepository, runWith } from './memory-io.js';

const upstream = ['--upstream-cmd', `"${process.execPath}" test/wire/recording-upstream.mjs`];
const overlay = ['--overlay', 'test/proxy/fixtures/recording.overlay.json'];
const passing = 'test/cli/fixtures/recording.cases.json';
const failing = 'test/cli/fixtures/recording-stale.cases.json';
const upstreamName = `the upstream ${process.execPath} test/wire/recording-upstream.mjs`;

describe('mcp-gate test against a live upstream', () => {
  it('passes cases whose primitives take their annotations from the upstream and the overlay (exit 0)', async () => {
    const result = await runInRepository(['test', passing, ...upstream, ...overlay, '--verbose']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        `PASS ${passing}: public-echo is for everyone`,
        `PASS ${passing}: secret-drop (annotated by the overlay) is hidden from cursor`,
        `PASS ${passing}: secret-doc is visible with x-role: admin`,
        '3 passed, 0 failed',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
  }, 60_000);

  it('fails a wrong expectation, an annotation the upstream does not have and a primitive it does not list, naming each case (exit 1)', async () => {
    const result = await runInRepository(['test', passing, failing, ...upstream, ...overlay]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      [
        `FAIL ${failing}: secret-meta is for everyone (wrong: its own _meta puts it in admin): expected allowed, got denied by rule "admin-only"`,
        `FAIL ${failing}: secret-drop was in group secret: expected denied, could not evaluate: the case says groups ["secret"], ${upstreamName} says ["admin"]`,
        `FAIL ${failing}: a tool the upstream dropped: expected allowed, could not evaluate: ${upstreamName} lists no tool "legacy-export"`,
        '3 passed, 3 failed',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(1);
  }, 60_000);

  it('without the overlay, secret-drop has no annotation and the case expecting it hidden fails', async () => {
    const result = await runInRepository(['test', passing, ...upstream, '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { files: { cases: { name: string; passed: boolean; actual: { allowed: boolean } }[] }[] };
    const byName = new Map(report.files[0]!.cases.map((entry) => [entry.name, entry]));
    expect(byName.get('secret-drop (annotated by the overlay) is hidden from cursor')).toMatchObject({ passed: false, actual: { allowed: true } });
    expect(byName.get('public-echo is for everyone')?.passed).toBe(true);
  }, 60_000);

  it('names the upstream that cannot be read (exit 1)', async () => {
    const result = await runInRepository(['test', passing, '--upstream-cmd', `"${process.execPath}" -e "process.exit(3)"`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^mcp-gate test: cannot read the upstream .* -e process\.exit\(3\): /);
    expect(result.stdout).toBe('');
  }, 60_000);
});

describe('mcp-gate test --upstream-url --upstream-header', () => {
  let http: HttpServer;
  let url: string;
  const seen: (string | undefined)[] = [];

  beforeAll(async () => {
    // Stateless: a server and transport per request, each refused without the upstream's own credential.
    http = createServer((request, response) => {
      seen.push(request.headers['x-upstream-key'] as string | undefined);
      if (request.headers['x-upstream-key'] !== 'k-123') {
        response.writeHead(401).end();
        return;
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = createRecordingUpstream();
      response.on('close', () => void Promise.all([transport.close(), server.close()]));
      void server.connect(transport).then(() => transport.handleRequest(request, response));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });

  it('sends the header on every request to the upstream, and reads its primitives with it', async () => {
    seen.length = 0;
    const result = await runInRepository(['test', passing, '--upstream-url', url, '--upstream-header', 'X-Upstream-Key: k-123', ...overlay]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('3 passed, 0 failed\n');
    expect(result.code).toBe(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((value) => value === 'k-123')).toBe(true);
  }, 60_000);

  it('is the same option for every command that reads an upstream (manifest here)', async () => {
    const result = await runInRepository(['manifest', '--upstream-url', url, '--upstream-header', 'X-Upstream-Key: k-123']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { server: { name: string } }).server.name).toBe('recording-upstream');
  }, 60_000);

  it('reads ${VAR} in its value from the environment, so the secret stays off the command line', async () => {
    seen.length = 0;
    const result = await runInRepository(['test', passing, '--upstream-url', url, '--upstream-header', 'X-Upstream-Key: ${UPSTREAM_KEY}', ...overlay], {
      UPSTREAM_KEY: 'k-123',
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((value) => value === 'k-123')).toBe(true);
  }, 60_000);

  it('refuses an unset ${VAR}, naming the header and the variable but no value (exit 2)', async () => {
    const result = await runInRepository(['manifest', '--upstream-url', url, '--upstream-header', 'X-Upstream-Key: k-${UPSTREAM_KEY}'], { OTHER: 'x' });
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate manifest: --upstream-header X-Upstream-Key: the environment variable UPSTREAM_KEY is not set\n' });
  });

  it('fails without it: the upstream refuses the reader', async () => {
    const result = await runInRepository(['test', passing, '--upstream-url', url, ...overlay]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^mcp-gate test: cannot read the upstream ${url.replace(/[.]/g, '\\.')}: `));
  }, 60_000);
});

describe('mcp-gate test with a manifest, and its usage errors', () => {
  const policy = json({ version: 1, default: 'allow', rules: [{ id: 'no-beta', effect: 'deny', appliesTo: { groups: ['beta'] } }] });
  const manifest = json({
    primitives: [
      { kind: 'tool', name: 'search', version: '1.0.0' },
      { kind: 'tool', name: 'search', version: '2.0.0', groups: ['beta'] },
    ],
  });
  const cases = (list: unknown[]) => json({ policy: 'policy.json', cases: list });

  it('takes a versioned primitive from the manifest and asks for the version when the name is ambiguous', async () => {
    const files = {
      'policy.json': policy,
      'm.json': manifest,
      'a.cases.json': cases([
        { name: 'v2 is beta', primitive: { kind: 'tool', name: 'search', version: '2.0.0' }, expect: { allowed: false, ruleId: 'no-beta' } },
        { name: 'v1 is not', primitive: { kind: 'tool', name: 'search', version: '1.0.0' }, expect: { allowed: true } },
        { name: 'which search?', primitive: { kind: 'tool', name: 'search' }, expect: { allowed: true } },
      ]),
    };
    const result = await runWith(['test', 'a.cases.json', '--manifest', 'm.json'], files);
    expect(result.stdout).toBe(
      [
        'FAIL a.cases.json: which search?: expected allowed, could not evaluate: m.json lists several of tool "search" (tool search@1.0.0, tool search@2.0.0); give its "version" in the case',
        '2 passed, 1 failed',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(1);
  });

  it.each([
    [['--overlay', 'o.json'], "--overlay annotates an upstream's primitives; pass --upstream-cmd or --upstream-url too"],
    [['--upstream-header', 'X-Key: 1'], '--upstream-header sets HTTP headers of an --upstream-url; pass --upstream-url too'],
    [['--manifest', 'm.json', '--upstream-url', 'http://127.0.0.1:1/mcp'], 'pass one source of primitives: --manifest, --server or --upstream-cmd/--upstream-url'],
    [
      ['--upstream-cmd', 'node server.js', '--upstream-header', 'X-Key: 1'],
      '--upstream-header sets HTTP headers of an --upstream-url; a spawned upstream takes its credentials from the environment',
    ],
    [['--upstream-url', 'http://127.0.0.1:1/mcp', '--upstream-header', 'X-Key'], '--upstream-header must be "Name: value" (no ":" found)'],
  ])('refuses %j with exit code 2', async (options, message) => {
    const result = await runWith(['test', 'a.cases.json', ...options]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `mcp-gate test: ${message}\n` });
  });
});

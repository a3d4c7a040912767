// The command line of proxy's identity and header options: every mistake is one line and exit
// code 2 (a bad key set given is exit code 1, naming the file or URL), and what the upstream
// session's headers are made of.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { upstreamSessionHeaders } from '../../src/proxy/upstream-headers.js';
import { createMemoryIo, runWith } from '../cli/memory-io.js';

const base = ['proxy', '--policy', 'p.json'];
const http = [...base, '--upstream-url', 'http://127.0.0.1:1/mcp'];
const jwks = ['--jwks', 'jwks.json', '--issuer', 'https://issuer.test', '--audience', 'https://gate.test/mcp'];

describe('mcp-gate proxy --upstream-header, --forward-header, --jwks (command line)', () => {
  it('lists the options in its help', async () => {
    const help = (await runWith(['proxy', '--help'])).stdout;
    for (const option of ['--jwks FILE|URL', '--issuer ISS', '--audience AUD', '--upstream-header "NAME: VALUE"', '--forward-header NAME']) expect(help).toContain(option);
  });

  it.each([
    [[...http, '--upstream-header', 'X-Key'], '--upstream-header must be "Name: value" (no ":" found)'],
    [[...http, '--upstream-header', 'Bad Name: v'], '--upstream-header "Bad Name" is not a valid header name'],
    [[...http, '--upstream-header', ': v'], '--upstream-header the header name is empty'],
    [[...http, '--upstream-header', 'X-Key:   '], '--upstream-header X-Key: the value is empty'],
    [[...http, '--upstream-header', 'X-Key: a\r\nX-Other: b'], '--upstream-header X-Key: the value holds a line break or another control character'],
    [[...http, '--upstream-header', 'Mcp-Session-Id: s'], "--upstream-header Mcp-Session-Id: the proxy's HTTP transport sets this header itself"],
    [[...http, '--upstream-header', 'X-Key: 1', '--upstream-header', 'x-key: 2'], '--upstream-header x-key is given twice'],
    [
      [...base, '--upstream-cmd', 'node server.js', '--upstream-header', 'X-Key: 1'],
      '--upstream-header set HTTP headers of an --upstream-url; a spawned upstream takes its credentials from the environment',
    ],
    [
      [...http, '--forward-header', 'Authorization'],
      "--forward-header Authorization: the client's credentials are never passed to the upstream (token passthrough); give the upstream its own with --upstream-header",
    ],
    [
      [...http, '--forward-header', 'cookie'],
      "--forward-header cookie: the client's credentials are never passed to the upstream (token passthrough); give the upstream its own with --upstream-header",
    ],
    [[...http, '--forward-header', 'Host'], "--forward-header Host: the proxy's HTTP transport sets this header itself"],
    // A 2026-07-28 client's Mcp-Name names what it calls, hidden or not; the transport writes the upstream's from the body.
    [[...http, '--forward-header', 'Mcp-Name'], "--forward-header Mcp-Name: the proxy's HTTP transport sets this header itself"],
    [[...http, '--forward-header', 'x-tenant', '--upstream-header', 'X-Tenant: a'], 'x-tenant is both set by --upstream-header and forwarded by --forward-header; pick one'],
    [[...http, '--stdio', '--forward-header', 'x-tenant'], '--forward-header passes on HTTP headers of the client; stdio has none'],
    [
      [...base, '--upstream-cmd', 'node server.js', '--forward-header', 'x-tenant'],
      '--forward-header set HTTP headers of an --upstream-url; a spawned upstream takes its credentials from the environment',
    ],
    [[...http, '--jwks', 'jwks.json'], '--jwks, --issuer and --audience go together; missing --issuer and --audience'],
    [[...http, '--issuer', 'https://issuer.test'], '--jwks, --issuer and --audience go together; missing --jwks and --audience'],
    [[...http, ...jwks, '--stdio'], '--jwks verifies the bearer tokens of HTTP requests; stdio carries none'],
    [[...http, '--jwks', 'jwks.json', '--issuer', ' ', '--audience', 'a'], '--issuer must be a non-empty value without control characters'],
    [
      [...http, '--jwks', 'http://issuer.example.com/jwks.json', '--issuer', 'i', '--audience', 'a'],
      '--jwks http://issuer.example.com/jwks.json: keys fetched over plain http could be swapped on the way; use https: (http: only for 127.0.0.1 or localhost)',
    ],
  ])('rejects %j with exit code 2', async (argv, message) => {
    const result = await runWith(argv);
    expect(result.stderr).toBe(`mcp-gate proxy: ${message}\n`);
    expect(result.code).toBe(2);
  });

  it('never prints an --upstream-header value in its messages', async () => {
    const result = await runWith([...http, '--upstream-header', 'Authorization: Bearer upstream-secret\u0007']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('upstream-secret');
  });

  const policy = JSON.stringify({ version: 1, default: 'allow', rules: [] });
  const runProxy = async (argv: readonly string[], files: Record<string, string>) => {
    const io = { ...createMemoryIo({ 'p.json': policy, ...files }), signal: new AbortController().signal };
    const code = await run(argv, io);
    return { code, stderr: io.err.join('') };
  };

  it('names a JWKS file that is missing, not JSON or not a key set, with exit code 1', async () => {
    expect(await runProxy([...http, ...jwks], {})).toEqual({ code: 1, stderr: 'jwks.json: no such file\n' });
    expect(await runProxy([...http, ...jwks], { 'jwks.json': '{"keys": [' })).toMatchObject({ code: 1, stderr: expect.stringMatching(/^jwks\.json:1:\d+: invalid JSON: /) });
    expect(await runProxy([...http, ...jwks], { 'jwks.json': '{"kid": "k"}' })).toEqual({
      code: 1,
      stderr: 'jwks.json: not a JSON Web Key Set (JSON Web Key Set malformed)\n',
    });
  });

  it('stops at startup when the JWKS URL does not answer, with exit code 1', async () => {
    const result = await runProxy([...http, '--jwks', 'http://127.0.0.1:1/jwks.json', '--issuer', 'i', '--audience', 'a'], {});
    expect(result.stderr).toMatch(/^mcp-gate proxy: --jwks http:\/\/127\.0\.0\.1:1\/jwks\.json: cannot fetch the key set: /);
    expect(result.code).toBe(1);
  });
});

describe('upstreamSessionHeaders', () => {
  it('sets the fixed headers and forwards the named ones the client sent, joined when repeated', () => {
    const headers = upstreamSessionHeaders([{ name: 'x-key', value: 'k' }], ['x-tenant', 'x-trace', 'x-absent'], {
      authorization: 'Bearer t',
      'x-tenant': 'a',
      'x-trace': ['1', '2'],
      'x-other': 'o',
    });
    expect(headers).toEqual({ 'x-key': 'k', 'x-tenant': 'a', 'x-trace': '1, 2' });
  });
});

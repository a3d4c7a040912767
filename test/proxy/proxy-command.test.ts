import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { splitCommandLine } from '../../src/proxy/upstream-command.js';
import { repositoryRoot, runWith } from '../cli/memory-io.js';

describe('mcp-gate proxy (command line)', () => {
  it('is listed and has help', async () => {
    expect((await runWith(['--help'])).stdout).toMatch(/^ {2}proxy {3,}gate any MCP server/m);
    const help = await runWith(['proxy', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: mcp-gate proxy --policy FILE [--overlay FILE] (--upstream-cmd "CMD ARGS" | --upstream-url URL)');
    expect(help.stdout).toContain('--upstream-cmd "CMD ARGS"');
  });

  it.each([
    [[], 'mcp-gate proxy: missing --policy FILE; see "mcp-gate proxy --help"'],
    [['--policy', 'p.json'], 'mcp-gate proxy: pass one upstream: --upstream-cmd "CMD ARGS" or --upstream-url URL'],
    [
      ['--policy', 'p.json', '--upstream-cmd', 'a', '--upstream-url', 'http://127.0.0.1:1/mcp'],
      'mcp-gate proxy: pass one upstream: --upstream-cmd "CMD ARGS" or --upstream-url URL',
    ],
    [['--policy', 'p.json', '--upstream-cmd', 'node "unterminated'], 'mcp-gate proxy: --upstream-cmd: unterminated double quote'],
    [['--policy', 'p.json', '--upstream-url', 'ftp://example.com'], 'mcp-gate proxy: --upstream-url must be an http: or https: URL, got "ftp://example.com"'],
    [
      ['--policy', 'p.json', '--upstream-cmd', 'a', '--host', '0.0.0.0'],
      'mcp-gate proxy: --host 0.0.0.0: only 127.0.0.1 is supported for now (the Host check admits loopback names only; see docs/proxy.md)',
    ],
    [['--policy', 'p.json', '--upstream-cmd', 'a', '--stdio', '--port', '1'], 'mcp-gate proxy: pass either --port or --stdio, not both'],
    [
      ['--policy', 'p.json', '--upstream-cmd', 'a', '--stdio', '--decision-log', '-'],
      'mcp-gate proxy: --decision-log - would write into the MCP stream on stdout; give a file with --stdio',
    ],
    [['--policy', 'p.json', '--upstream-cmd', 'a', '--page-size', '0'], 'mcp-gate proxy: --page-size must be a whole number from 1 to 100000, got "0"'],
    [['--policy', 'p.json', '--upstream-cmd', 'a', '--upstream-ping', '0'], 'mcp-gate proxy: --upstream-ping must be a whole number from 1 to 86400, got "0"'],
    [
      ['--policy', 'p.json', '--upstream-url', 'http://127.0.0.1:1/sse', '--upstream-transport', 'ws'],
      'mcp-gate proxy: --upstream-transport must be streamable-http or sse, got "ws"',
    ],
    [['--policy', 'p.json', '--upstream-cmd', 'a', '--upstream-transport', 'sse'], 'mcp-gate proxy: --upstream-transport is for --upstream-url; --upstream-cmd speaks stdio'],
    [
      ['--policy', 'p.json', '--upstream-url', 'http://127.0.0.1:1/mcp', '--upstream-header', 'X-Key: ${UPSTREAM_KEY}'],
      'mcp-gate proxy: --upstream-header X-Key: the environment variable UPSTREAM_KEY is not set',
    ],
  ])('rejects %j with exit code 2', async (argv, message) => {
    const result = await runWith(['proxy', ...argv]);
    expect(result.stderr).toBe(`${message}\n`);
    expect(result.code).toBe(2);
  });

  it('names the overlay file and the path of each problem in it', async () => {
    const result = await runWith(['proxy', '--policy', 'p.json', '--overlay', 'o.json', '--upstream-cmd', 'a'], {
      'p.json': JSON.stringify({ version: 1, default: 'allow', rules: [] }),
      'o.json': JSON.stringify({ metadata: { 'tool:x': { groups: [''] } } }),
    });
    expect(result.stderr).toBe('o.json: metadata["tool:x"].groups[0]: Too small: expected string to have >=1 characters\n');
    expect(result.code).toBe(1);
  });

  it('fails with one line when the upstream command cannot start', async () => {
    const err: string[] = [];
    const code = await run(['proxy', '--policy', 'test/proxy/fixtures/admin-only.policy.json', '--upstream-cmd', 'mcp-gate-no-such-command-xyz', '--port', '0'], {
      cwd: repositoryRoot,
      stdout: () => undefined,
      stderr: (text) => err.push(text),
      readFile: (path) => readFile(path, 'utf8'),
      signal: new AbortController().signal,
    });
    expect(err.join('')).toMatch(/^mcp-gate proxy: cannot reach the upstream mcp-gate-no-such-command-xyz: .*ENOENT/m);
    expect(code).toBe(1);
  });
});

describe('splitCommandLine', () => {
  it('splits words as a shell would, without running one', () => {
    expect(splitCommandLine(`uv run --with "mcp[cli]" server.py 'a b' c\\ d "x\\"y"`)).toEqual({
      command: 'uv',
      args: ['run', '--with', 'mcp[cli]', 'server.py', 'a b', 'c d', 'x"y'],
    });
    expect(splitCommandLine('  node  server.js  ')).toEqual({ command: 'node', args: ['server.js'] });
    expect(splitCommandLine('"" x')).toBe('no command given');
    expect(splitCommandLine("it's")).toBe('unterminated single quote');
    expect(splitCommandLine('   ')).toBe('no command given');
  });
});

// The package as a user gets it: packed from this run's build (test/built-dist.ts: the steps of
// `npm run build`, which prepack runs, into dist/ with nothing left over from earlier builds),
// installed from the tarball into a scratch project outside the repository with none of the
// optional peers, then used. Each peer is linked in from the repository's node_modules only for
// the step that needs it, so nothing is downloaded but what the npm cache lacks (--prefer-offline).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce } from '../built-dist.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const sdkV1 = '@modelcontextprotocol/sdk';
const sdkV2 = '@modelcontextprotocol/server';

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program to completion (or kills it after `timeoutMs`), never throwing for an exit code. */
function runProgram(file: string, args: readonly string[], cwd: string, timeoutMs = 90_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // CI and npm_config_* from the outer `npm test` must not change how the inner npm behaves.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') {
        const why = error.killed ? `killed after ${timeoutMs} ms` : error.message;
        reject(new Error(`${file} ${args.join(' ')}: ${why}\n${stderr}`));
      } else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

let workDirectory: string;
let project: string;
let packedFiles: string[];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** `npx mcp-gate …` in the scratch project; `--no` so npx never downloads a package, `--` so `--help` is mcp-gate's. */
const npxMcpGate = (...args: string[]) => runProgram(npx, ['--no', '--', 'mcp-gate', ...args], project);

/** The installed bin run as a shell runs it (its shebang): what `npx mcp-gate` runs once it has found it, at a third of the CPU time. */
const mcpGate = (...args: string[]) => runProgram(join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'mcp-gate.cmd' : 'mcp-gate'), args, project);

/** Runs an ES module script in a fresh node in the scratch project. */
const nodeIn = (script: string) => runProgram(process.execPath, ['--input-type=module', '-e', script], project);

/** Makes exactly these optional peers resolvable from the scratch project, from the repository's node_modules. */
function linkPeers(...peers: string[]): void {
  const scope = join(project, 'node_modules', '@modelcontextprotocol');
  rmSync(scope, { recursive: true, force: true });
  rmSync(join(project, 'node_modules', 'fast-check'), { recursive: true, force: true });
  for (const peer of peers) {
    mkdirSync(join(project, 'node_modules', ...peer.split('/').slice(0, -1)), { recursive: true });
    symlinkSync(join(repositoryRoot, 'node_modules', peer), join(project, 'node_modules', peer), 'dir');
  }
}

/** Which of the optional peers the scratch project can resolve, as `name: yes|no` lines. */
async function resolvablePeers(): Promise<string> {
  const names = JSON.stringify([sdkV1, sdkV2, '@modelcontextprotocol/node', 'fast-check']);
  const ran = await nodeIn(`for (const name of ${names}) { let found = 'yes'; try { import.meta.resolve(name) } catch { found = 'no' } console.log(name + ': ' + found) }`);
  return ran.stdout;
}

const policy = 'node_modules/mcp-gate/policies/demo.json';
const manifest = 'node_modules/mcp-gate/policies/demo.manifest.json';
const demoServer = 'node_modules/mcp-gate/dist/demo/demo-server.js';
const missingV1 = (needer: string) =>
  `${needer}: needs @modelcontextprotocol/sdk (the v1 MCP TypeScript SDK), which is not installed; install it with: npm install "@modelcontextprotocol/sdk@^1.32.0"\n`;

beforeAll(async () => {
  expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
  workDirectory = mkdtempSync(join(tmpdir(), 'mcp-gate-pack-'));
  // --ignore-scripts: prepack would build dist/ again; the run's build is that build.
  const pack = await runProgram(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', workDirectory], repositoryRoot);
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  packedFiles = packed!.files.map((file) => file.path);

  project = join(workDirectory, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'scratch', private: true, type: 'module' })}\n`);
  const install = await runProgram(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(workDirectory, packed!.filename)], project, 120_000);
  expect(install.code, install.stderr).toBe(0);
}, 320_000);

afterAll(() => {
  if (workDirectory) rmSync(workDirectory, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the build, the license and every file package.json points at, and no source maps', () => {
    const packageJson = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>;
      bin: Record<string, string>;
    };
    const targets = [
      ...Object.values(packageJson.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
      ...Object.values(packageJson.bin),
    ].map((target) => target.replace(/^\.\//, ''));
    for (const file of [...targets, 'LICENSE', 'README.md', 'policies/demo.json', 'dist/playground/index.html', 'dist/playground/playground.js'])
      expect(packedFiles).toContain(file);
    expect(packedFiles.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(packedFiles.filter((file) => !/^(dist|policies|docs)\/|^(LICENSE|README\.md|package\.json)$/.test(file))).toEqual([]);
  });

  it('runs the CLI with none of the optional peers installed, and names the package a command needs', async () => {
    linkPeers();
    expect(await resolvablePeers()).toBe(`${sdkV1}: no\n${sdkV2}: no\n@modelcontextprotocol/node: no\nfast-check: no\n`);

    const help = await npxMcpGate('--help');
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^Usage: mcp-gate <command> \[options\]\n/);
    expect(help.code).toBe(0);

    const validate = await mcpGate('validate', policy);
    expect(validate).toMatchObject({ code: 0, stderr: '' });
    expect(validate.stdout).toMatch(/^node_modules\/mcp-gate\/policies\/demo\.json: valid \(\d+ rules, revision [0-9a-f]{16}\)\n$/);

    const explain = await mcpGate('explain', '--policy', policy, '--manifest', manifest, '--client', 'cursor');
    expect(explain).toMatchObject({ code: 0, stderr: '' });
    expect(explain.stdout).toMatch(/^\d+ of \d+ primitives visible\.$/m);

    expect(await mcpGate('explain', '--policy', policy, '--server', demoServer)).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    expect(await mcpGate('manifest', '--server', demoServer)).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    expect(await mcpGate('serve', '--policy', policy)).toEqual({ code: 3, stdout: '', stderr: missingV1('mcp-gate serve') });

    const core = await nodeIn(`const gate = await import('mcp-gate'); console.log(typeof gate.compilePolicy)`);
    expect(core).toEqual({ code: 0, stdout: 'function\n', stderr: '' });
  }, 240_000);

  it('runs the CLI and imports mcp-gate/server with only the v2 SDK installed', async () => {
    linkPeers(sdkV2, '@modelcontextprotocol/node');
    expect(await resolvablePeers()).toBe(`${sdkV1}: no\n${sdkV2}: yes\n@modelcontextprotocol/node: yes\nfast-check: no\n`);

    const server = await nodeIn(`const gate = await import('mcp-gate/server'); console.log(typeof gate.createGate)`);
    expect(server).toEqual({ code: 0, stdout: 'function\n', stderr: '' });

    expect(await mcpGate('validate', policy)).toMatchObject({ code: 0, stderr: '' });
    expect(await mcpGate('explain', '--policy', policy, '--server', demoServer)).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    // serve's help needs no SDK; serving does, and says which one to install.
    const serveHelp = await mcpGate('serve', '--help');
    expect(serveHelp).toMatchObject({ code: 0, stderr: '' });
    expect(serveHelp.stdout).toMatch(/^Usage: mcp-gate serve /);
    expect(await mcpGate('serve', '--policy', policy, '--port', '0')).toEqual({ code: 3, stdout: '', stderr: missingV1('mcp-gate serve') });
  }, 240_000);

  it('imports mcp-gate/sdk and reads a server module with only the v1 SDK installed', async () => {
    linkPeers(sdkV1);
    expect(await resolvablePeers()).toBe(`${sdkV1}: yes\n${sdkV2}: no\n@modelcontextprotocol/node: no\nfast-check: no\n`);

    const sdk = await nodeIn(`const gate = await import('mcp-gate/sdk'); console.log(typeof gate.createGate)`);
    expect(sdk).toEqual({ code: 0, stdout: 'function\n', stderr: '' });

    const explain = await mcpGate('explain', '--policy', policy, '--server', demoServer, '--client', 'cursor');
    expect(explain).toMatchObject({ code: 0, stderr: '' });
    expect(explain.stdout).toMatch(/^\d+ of 13 primitives visible\.$/m);

    const serveHelp = await mcpGate('serve', '--help');
    expect(serveHelp).toMatchObject({ code: 0, stderr: '' });
    expect(serveHelp.stdout).toMatch(/^Usage: mcp-gate serve /);
  }, 240_000);

  it('imports mcp-gate/testing with fast-check installed', async () => {
    linkPeers('fast-check');
    const testing = await nodeIn(`const kit = await import('mcp-gate/testing'); console.log(typeof kit.checkGateInvariants)`);
    expect(testing).toEqual({ code: 0, stdout: 'function\n', stderr: '' });
  }, 120_000);
});

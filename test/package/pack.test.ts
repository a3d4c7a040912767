// The package as a user gets it: packed from this run's build (test/built-dist.ts: the steps of
// `npm run build`, which prepack runs, into dist/ with nothing left over from earlier builds),
// installed from the tarball into a scratch project outside the repository with none of the
// optional peers, then used. Each peer is linked in from the repository's node_modules only for
// the step that needs it, so nothing is downloaded but what the npm cache lacks (--prefer-offline).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/** One check that installed-checks.mjs makes in the scratch project. */
type Check = { readonly resolvable: readonly string[] } | { readonly import: string; readonly export: string } | { readonly cli: readonly string[] };
const peerNames = [sdkV1, sdkV2, '@modelcontextprotocol/node', 'fast-check'];
/** Which of the optional peers the scratch project can resolve, as `name: yes|no` lines. */
const resolvablePeers: Check = { resolvable: peerNames };
/** The type of an export of one of the package's entry points, imported by name. */
const exportOf = (specifier: string, name: string): Check => ({ import: specifier, export: name });
/** The installed bin run with these arguments: its exit code, stdout and stderr. */
const mcpGate = (...args: string[]): Check => ({ cli: args });

/**
 * Makes the checks in one fresh node in the scratch project (installed-checks.mjs), one result
 * each in order, rather than a node per check: the bin's and the package's modules load once.
 */
async function checkInstalled(...checks: Check[]): Promise<unknown[]> {
  const ran = await runProgram(process.execPath, [join(project, 'installed-checks.mjs'), JSON.stringify(checks)], project);
  expect(ran, 'installed-checks.mjs').toMatchObject({ code: 0, stderr: '' });
  const results = JSON.parse(ran.stdout) as unknown[];
  expect(results).toHaveLength(checks.length);
  return results;
}

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
  // --ignore-scripts: nothing the package or its dependencies install needs a script;
  // --prefer-offline, not --offline: a CI cache filled by `npm ci` holds tarballs but may lack the registry's metadata.
  const install = await runProgram(
    npm,
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', join(workDirectory, packed!.filename)],
    project,
    120_000,
  );
  expect(install.code, install.stderr).toBe(0);
  copyFileSync(fileURLToPath(new URL('installed-checks.mjs', import.meta.url)), join(project, 'installed-checks.mjs'));
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
    const [help, [peers, validate, explain, explainServer, manifestServer, serve, core]] = await Promise.all([
      npxMcpGate('--help'),
      checkInstalled(
        resolvablePeers,
        mcpGate('validate', policy),
        mcpGate('explain', '--policy', policy, '--manifest', manifest, '--client', 'cursor'),
        mcpGate('explain', '--policy', policy, '--server', demoServer),
        mcpGate('manifest', '--server', demoServer),
        mcpGate('serve', '--policy', policy),
        exportOf('mcp-gate', 'compilePolicy'),
      ),
    ]);
    expect(peers).toBe(`${sdkV1}: no\n${sdkV2}: no\n@modelcontextprotocol/node: no\nfast-check: no\n`);

    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^Usage: mcp-gate <command> \[options\]\n/);
    expect(help.code).toBe(0);

    expect(validate).toMatchObject({ code: 0, stderr: '' });
    expect((validate as Ran).stdout).toMatch(/^node_modules\/mcp-gate\/policies\/demo\.json: valid \(\d+ rules, revision [0-9a-f]{16}\)\n$/);

    expect(explain).toMatchObject({ code: 0, stderr: '' });
    expect((explain as Ran).stdout).toMatch(/^\d+ of \d+ primitives visible\.$/m);

    expect(explainServer).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    expect(manifestServer).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    expect(serve).toEqual({ code: 3, stdout: '', stderr: missingV1('mcp-gate serve') });

    expect(core).toBe('function');
  }, 240_000);

  it('runs the CLI and imports mcp-gate/server with only the v2 SDK installed', async () => {
    linkPeers(sdkV2, '@modelcontextprotocol/node');
    const [peers, server, validate, explainServer, serveHelp, serve] = await checkInstalled(
      resolvablePeers,
      exportOf('mcp-gate/server', 'createGate'),
      mcpGate('validate', policy),
      mcpGate('explain', '--policy', policy, '--server', demoServer),
      mcpGate('serve', '--help'),
      mcpGate('serve', '--policy', policy, '--port', '0'),
    );
    expect(peers).toBe(`${sdkV1}: no\n${sdkV2}: yes\n@modelcontextprotocol/node: yes\nfast-check: no\n`);

    expect(server).toBe('function');

    expect(validate).toMatchObject({ code: 0, stderr: '' });
    expect(explainServer).toEqual({ code: 3, stdout: '', stderr: missingV1(demoServer) });
    // serve's help needs no SDK; serving does, and says which one to install.
    expect(serveHelp).toMatchObject({ code: 0, stderr: '' });
    expect((serveHelp as Ran).stdout).toMatch(/^Usage: mcp-gate serve /);
    expect(serve).toEqual({ code: 3, stdout: '', stderr: missingV1('mcp-gate serve') });
  }, 240_000);

  it('imports mcp-gate/sdk and reads a server module with only the v1 SDK installed', async () => {
    linkPeers(sdkV1);
    const [peers, sdk, explain, serveHelp] = await checkInstalled(
      resolvablePeers,
      exportOf('mcp-gate/sdk', 'createGate'),
      mcpGate('explain', '--policy', policy, '--server', demoServer, '--client', 'cursor'),
      mcpGate('serve', '--help'),
    );
    expect(peers).toBe(`${sdkV1}: yes\n${sdkV2}: no\n@modelcontextprotocol/node: no\nfast-check: no\n`);

    expect(sdk).toBe('function');

    expect(explain).toMatchObject({ code: 0, stderr: '' });
    expect((explain as Ran).stdout).toMatch(/^\d+ of 13 primitives visible\.$/m);

    expect(serveHelp).toMatchObject({ code: 0, stderr: '' });
    expect((serveHelp as Ran).stdout).toMatch(/^Usage: mcp-gate serve /);
  }, 240_000);

  it('imports mcp-gate/testing with fast-check installed', async () => {
    linkPeers('fast-check');
    expect(await checkInstalled(exportOf('mcp-gate/testing', 'checkGateInvariants'))).toEqual(['function']);
  }, 120_000);
});

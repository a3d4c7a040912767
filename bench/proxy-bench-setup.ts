// What the proxy benches share: the policy in front of the bench upstream, and their processes (the
// upstream and each proxy run in a child process of their own, found by the "listening on URL"
// line they print to stderr).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The proxy benches' policy (the sdk benches' header rule and client-name rule, evaluated on every
// tool) with an overlay tagging a tenth of the tools beta: a client named beta-… sees every tool.
export const proxyBenchPolicy = {
  version: 1,
  default: 'allow',
  rules: [
    { id: 'internal-needs-header', effect: 'deny', appliesTo: { groups: ['internal'] }, when: { '!=': [{ var: 'request.headers.x-internal' }, '1'] } },
    { id: 'beta-for-beta-clients', effect: 'deny', appliesTo: { tags: ['beta'] }, when: { '!': [{ starts_with: [{ var: 'client.name' }, 'beta'] }] } },
  ],
};
export const proxyBenchOverlay = { metadata: { 'tool:tool-*9': { tags: ['beta'] } } };
export const proxyBenchClientName = 'beta-bench-client';

export interface Child {
  readonly child: ChildProcess;
  stderr(): string;
}

export const tsxLoader = createRequire(import.meta.url).resolve('tsx');
/** node arguments of the 1,000-tool bench upstream; add `stdio` or `http`. */
export const upstreamArgs = ['--import', tsxLoader, 'bench/proxy-upstream.ts'];

/** The bench policy and overlay as files, for `mcp-gate proxy --policy … --overlay …`. */
export function writeBenchPolicyFiles(): { readonly policyPath: string; readonly overlayPath: string } {
  const workDir = mkdtempSync(join(tmpdir(), 'mcp-gate-bench-proxy-'));
  const policyPath = join(workDir, 'policy.json');
  const overlayPath = join(workDir, 'overlay.json');
  writeFileSync(policyPath, JSON.stringify(proxyBenchPolicy));
  writeFileSync(overlayPath, JSON.stringify(proxyBenchOverlay));
  return { policyPath, overlayPath };
}

/** node arguments of `mcp-gate proxy` (from source) on a free port with the bench policy and overlay, in front of `upstream` (`--upstream-cmd …` or `--upstream-url …`). */
export function benchProxyArgs(
  files: { readonly policyPath: string; readonly overlayPath: string },
  upstream: readonly string[],
  nodeOptions: readonly string[] = [],
): string[] {
  return [...nodeOptions, '--import', tsxLoader, 'src/cli/main.ts', 'proxy', '--port', '0', '--policy', files.policyPath, '--overlay', files.overlayPath, ...upstream];
}

/** Starts node processes with stderr kept; `killAll` ends every one started. */
export function createChildren(): { start(args: readonly string[], cwd?: string): Child; killAll(): void } {
  const children: ChildProcess[] = [];
  return {
    start(args, cwd = process.cwd()) {
      const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      children.push(child);
      return { child, stderr: () => stderr };
    },
    killAll() {
      for (const child of children) child.kill('SIGTERM');
    },
  };
}

export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The URL a child prints once it listens (a loaded machine starts node + tsx slowly: 120 s). */
export function listeningUrl(child: Child, what: string): Promise<URL> {
  return until(
    what,
    () => {
      if (child.child.exitCode !== null) throw new Error(`${what}: exited ${child.child.exitCode}`);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(child.stderr());
      return match ? new URL(match[1]!) : undefined;
    },
    120_000,
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; its stderr:\n${child.stderr()}`);
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** mcp-proxy (npm, the most used TypeScript proxy, ungated) in front of a stdio bench upstream, on a free port. */
export async function startMcpProxy(children: ReturnType<typeof createChildren>): Promise<{ readonly child: Child; readonly url: URL }> {
  const port = await freePort();
  const child = children.start([
    'node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--server',
    'stream',
    '--',
    process.execPath,
    ...upstreamArgs,
    'stdio',
  ]);
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

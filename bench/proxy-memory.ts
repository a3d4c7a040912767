// The heap each proxied session costs: `mcp-gate proxy` run in this process in front of an HTTP
// upstream (bench/proxy-upstream.ts, 1,000 tools, one upstream session per proxied session, no
// process per session), measured as the heap after GC before and after opening N more sessions,
// each initialized and listed once. bench/proxy-call.ts prints it after its timings;
// `npx tsx bench/proxy-memory.ts` runs it alone.
//
//   PROXY_SESSIONS (default 50)
import { pathToFileURL } from 'node:url';
import type { Overlay } from '../src/wire/overlay.js';
import { createWireGate, serveProxyHttp } from '../src/proxy/proxy-runtime.js';
import { openUpstreamTransport } from '../src/proxy/upstream-transport.js';
import { collectGarbage } from './process-env.js';
import { post } from './raw-mcp.js';

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

export interface ProxyMemoryOptions {
  readonly upstreamUrl: URL;
  readonly policyDocument: unknown;
  readonly overlay: Overlay;
  readonly sessions: number;
  readonly clientName: string;
}

export interface ProxyMemoryResult {
  readonly perSessionKb: number;
  readonly baseMb: number;
}

const heapMb = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

async function openAndList(url: URL, clientName: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1.0.0' } },
    }),
    signal: AbortSignal.timeout(120_000),
  });
  const session = response.headers.get('mcp-session-id');
  await response.text();
  if (response.status !== 200 || session === null) throw new Error(`initialize through the in-process proxy answered ${response.status}`);
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const list = await post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, session);
  if (list.status !== 200 || !list.body.includes('"tools":')) throw new Error(`tools/list through the in-process proxy answered ${list.status}: ${list.body.slice(0, 300)}`);
}

/** Heap per proxied session after GC, in front of `options.upstreamUrl`. */
export async function measureProxyMemory(options: ProxyMemoryOptions): Promise<ProxyMemoryResult> {
  const controller = new AbortController();
  const wire = createWireGate({ policy: options.policyDocument as never, overlay: options.overlay, onError: () => undefined });
  const proxy = await serveProxyHttp(
    wire,
    () => openUpstreamTransport({ kind: 'url', url: options.upstreamUrl }, { cwd: process.cwd() }),
    { port: 0, maxSessions: options.sessions + 10, sessionIdleTimeoutMs: 0 },
    controller.signal,
    () => undefined,
  );
  try {
    await openAndList(proxy.host.url, options.clientName);
    const baseMb = heapMb();
    for (let index = 0; index < options.sessions; index++) await openAndList(proxy.host.url, options.clientName);
    return { perSessionKb: ((heapMb() - baseMb) * 1024) / options.sessions, baseMb };
  } finally {
    controller.abort();
    await proxy.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { spawn } = await import('node:child_process');
  const { createRequire } = await import('node:module');
  const { compileOverlay } = await import('../src/wire/overlay.js');
  const { envInt } = await import('./process-env.js');
  const { closeAgent } = await import('./raw-mcp.js');
  const sessions = envInt('PROXY_SESSIONS', 50);
  const tsxLoader = createRequire(import.meta.url).resolve('tsx');
  const upstream = spawn(process.execPath, ['--import', tsxLoader, 'bench/proxy-upstream.ts', 'http'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const upstreamUrl = await new Promise<URL>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`the HTTP upstream did not start within 120 s:\n${stderr}`)), 120_000);
      upstream.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(new URL(match[1]!));
        }
      });
      upstream.on('exit', (code) => reject(new Error(`the HTTP upstream exited ${code}:\n${stderr}`)));
    });
    const result = await measureProxyMemory({
      upstreamUrl,
      policyDocument: proxyBenchPolicy,
      overlay: compileOverlay(proxyBenchOverlay),
      sessions,
      clientName: proxyBenchClientName,
    });
    console.log(
      `memory: ${sessions} more proxied sessions (each initialized and listed once, upstream of 1,000 tools over HTTP): ${result.perSessionKb.toFixed(0)} kB of heap per session after GC (heap ${result.baseMb.toFixed(1)} MB before)`,
    );
  } finally {
    closeAgent();
    upstream.kill('SIGTERM');
  }
}

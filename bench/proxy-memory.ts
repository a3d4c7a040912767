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
import { openSession, post } from './raw-mcp.js';

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
  const session = await openSession(url, clientName);
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
  const { compileOverlay } = await import('../src/wire/overlay.js');
  const { envInt } = await import('./process-env.js');
  const { closeAgent } = await import('./raw-mcp.js');
  const { createChildren, listeningUrl, proxyBenchClientName, proxyBenchOverlay, proxyBenchPolicy, upstreamArgs } = await import('./proxy-bench-setup.js');
  const sessions = envInt('PROXY_SESSIONS', 50);
  const children = createChildren();
  try {
    const upstreamUrl = await listeningUrl(children.start([...upstreamArgs, 'http']), 'the HTTP upstream');
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
    children.killAll();
  }
}

// CPU time per proxied tools/call, per process: what each hop costs, read from /proc (user +
// system time, Linux only), so that a loaded machine changes the figures far less than it changes
// wall-clock latencies. Targets as bench/proxy-call.ts has them, measured one after the other
// (each process's CPU is its own): direct (the HTTP upstream), mcp-gate --upstream-cmd (the proxy
// and the upstream it spawned), mcp-gate --upstream-url (the proxy, and the HTTP upstream it
// reaches), mcp-proxy (it and its upstream). A CPU profile of a process: PROFILE_DIR=dir adds
// --cpu-prof to the proxies. BASELINE_DIR=dir adds `mcp-gate (base)` and `mcp-gate (base url)`: the
// proxy --upstream-cmd and --upstream-url of another checkout (its node_modules linked), for a
// before/after in one run.
//
//   CALLS (per target per repetition, default 2000)  REPEAT (default 3)
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { envInt } from './process-env.js';
import { benchProxyArgs, createChildren, listeningUrl, proxyBenchClientName, startMcpProxy, upstreamArgs, writeBenchPolicyFiles } from './proxy-bench-setup.js';
import { closeAgent, openSession, post } from './raw-mcp.js';

const calls = envInt('CALLS', 2000);
const repeat = envInt('REPEAT', 3);
const profileDir = process.env['PROFILE_DIR'];
const baselineDir = process.env['BASELINE_DIR'];
const { policyPath, overlayPath } = writeBenchPolicyFiles();
const children = createChildren();
const start = (args: readonly string[], cwd?: string) => children.start(args, cwd);

/** User + system CPU of one process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

interface Target {
  readonly id: string;
  readonly url: URL;
  readonly session: string;
  /** The processes whose CPU a call through this target costs, by role. */
  readonly processes: Readonly<Record<string, number>>;
}

const callBody = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'tool-500', arguments: { query: 'hello', limit: 3 } } });

async function callMany(target: Target, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const answer = await post(target.url, callBody(index + 1), target.session);
    if (answer.status !== 200 || !answer.body.includes('"result":')) throw new Error(`${target.id}: HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
}

const proxyArgs = (upstream: string[]) => benchProxyArgs({ policyPath, overlayPath }, upstream, profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]);

try {
  console.log(
    `bench:proxy-cpu — load average at start ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  const upstream = start([...upstreamArgs, 'http']);
  const directUrl = await listeningUrl(upstream, 'the HTTP upstream');
  const gate = start(proxyArgs(['--upstream-cmd', [process.execPath, ...upstreamArgs, 'stdio'].join(' ')]));
  const gateUrl = await listeningUrl(gate, 'mcp-gate proxy --upstream-cmd');
  const baseline = baselineDir === undefined ? undefined : start(proxyArgs(['--upstream-cmd', [process.execPath, ...upstreamArgs, 'stdio'].join(' ')]), baselineDir);
  const baselineUrl = baseline === undefined ? undefined : await listeningUrl(baseline, `mcp-gate proxy in ${baselineDir}`);
  const gateHttp = start(proxyArgs(['--upstream-url', directUrl.href]));
  const gateHttpUrl = await listeningUrl(gateHttp, 'mcp-gate proxy --upstream-url');
  const baselineHttp = baselineDir === undefined ? undefined : start(proxyArgs(['--upstream-url', directUrl.href]), baselineDir);
  const baselineHttpUrl = baselineHttp === undefined ? undefined : await listeningUrl(baselineHttp, `mcp-gate proxy --upstream-url in ${baselineDir}`);
  const { child: mcpProxy, url: mcpProxyUrl } = await startMcpProxy(children);

  const open = async (id: string, url: URL, processes: () => Record<string, number>): Promise<Target> => {
    const session = await openSession(url, proxyBenchClientName);
    return { id, url, session, processes: processes() };
  };
  let mcpProxySession: string | undefined;
  for (let attempt = 0; attempt < 600 && mcpProxySession === undefined; attempt++) {
    mcpProxySession = await openSession(mcpProxyUrl, proxyBenchClientName).catch(() => undefined);
    if (mcpProxySession === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (mcpProxySession === undefined) throw new Error('mcp-proxy did not accept a session');
  const targets: Target[] = [
    await open('direct', directUrl, () => ({ upstream: upstream.child.pid! })),
    // The session's own upstream process is the proxy's newest child (the startup check's has exited).
    await open('mcp-gate (cmd)', gateUrl, () => ({ proxy: gate.child.pid!, upstream: Math.max(...childrenOf(gate.child.pid!)) })),
    ...(baseline === undefined || baselineUrl === undefined
      ? []
      : [await open('mcp-gate (base)', baselineUrl, () => ({ proxy: baseline.child.pid!, upstream: Math.max(...childrenOf(baseline.child.pid!)) }))]),
    await open('mcp-gate (url)', gateHttpUrl, () => ({ proxy: gateHttp.child.pid!, upstream: upstream.child.pid! })),
    ...(baselineHttp === undefined || baselineHttpUrl === undefined
      ? []
      : [await open('mcp-gate (base url)', baselineHttpUrl, () => ({ proxy: baselineHttp.child.pid!, upstream: upstream.child.pid! }))]),
    { id: 'mcp-proxy', url: mcpProxyUrl, session: mcpProxySession, processes: { proxy: mcpProxy.child.pid!, upstream: Math.max(...childrenOf(mcpProxy.child.pid!)) } },
  ];

  const results: Record<string, Record<string, number>[]> = {};
  for (const target of targets) await callMany(target, Math.min(500, calls));
  for (let round = 0; round < repeat; round++) {
    for (const target of targets) {
      const before = Object.fromEntries(Object.entries(target.processes).map(([role, pid]) => [role, cpuMs(pid)]));
      const startedAt = process.hrtime.bigint();
      await callMany(target, calls);
      const wallUs = Number(process.hrtime.bigint() - startedAt) / 1e3 / calls;
      const perCall: Record<string, number> = { wall: wallUs };
      for (const [role, pid] of Object.entries(target.processes)) perCall[role] = ((cpuMs(pid) - before[role]!) * 1e3) / calls;
      (results[target.id] ??= []).push(perCall);
    }
  }
  console.log(`\nCPU per tools/call, µs (user + system, from /proc; ${calls} calls per target, ${repeat} repetitions, targets one after the other)`);
  for (const [id, rows] of Object.entries(results)) {
    for (const row of rows) {
      const cpu = Object.entries(row).filter(([role]) => role !== 'wall');
      const total = cpu.reduce((sum, [, value]) => sum + value, 0);
      console.log(
        `  ${id.padEnd(15)} ${cpu.map(([role, value]) => `${role} ${value.toFixed(0).padStart(5)}`).join('  ')}   total ${total.toFixed(0).padStart(5)}   wall ${row['wall']!.toFixed(0).padStart(5)}`,
      );
    }
  }
  console.log(
    `load average at end ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
} finally {
  closeAgent();
  children.killAll();
}

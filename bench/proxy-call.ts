// npm run bench:proxy: what `mcp-gate proxy` costs a client, over loopback HTTP, side by side in
// one run. One upstream (the 1,000-tool bench server, bench/proxy-upstream.ts), reached:
//   direct          over Streamable HTTP, no proxy (and a second session, "direct again": the A/A control);
//   mcp-gate        `mcp-gate proxy --upstream-cmd` (HTTP in, the upstream spawned over stdio), gated;
//   mcp-gate (url)  `mcp-gate proxy --upstream-url` in front of the direct upstream (HTTP in, HTTP out), gated;
//   mcp-proxy       npm's mcp-proxy (ungated; HTTP in, the upstream spawned over stdio), its defaults.
// Each is a separate process; the client here POSTs raw JSON-RPC (bench/raw-mcp.ts) so that an SDK
// Client's own costs are not measured. Every target must give the same answer before anything is
// timed. Rounds are interleaved (a different target first each round) and every request is timed,
// for p50 and p99. Then the heap per proxied session, measured in this process (heap after GC).
// Goals (issue 13): mcp-gate p50 <= 1.0x mcp-proxy's and <= 1.25x direct for tools/call;
// tools/list of 1,000 tools <= 0.3x direct (the proxy answers from its cached list).
//
//   ROUNDS (default 30)  CALLS (requests per target per round, default 20)  PROXY_SESSIONS (default 50)
import { loadavg } from 'node:os';
import { compileOverlay } from '../src/wire/overlay.js';
import { envInt } from './process-env.js';
import { measureProxyMemory } from './proxy-memory.js';
import {
  benchProxyArgs,
  createChildren,
  listeningUrl,
  proxyBenchClientName,
  proxyBenchOverlay,
  proxyBenchPolicy,
  until,
  upstreamArgs,
  startMcpProxy,
  writeBenchPolicyFiles,
} from './proxy-bench-setup.js';
import { closeAgent, post } from './raw-mcp.js';
import { writeResults } from './sdk-harness.js';

const rounds = envInt('ROUNDS', 30);
const callsPerRound = envInt('CALLS', 20);
const proxySessions = envInt('PROXY_SESSIONS', 50);
const upstreamCommand = [process.execPath, ...upstreamArgs, 'stdio'].join(' ');

// Every tool stays visible to the bench client (a beta client), so each target's answers are the same bytes.
const { policyPath, overlayPath } = writeBenchPolicyFiles();
const clientName = proxyBenchClientName;
const children = createChildren();
const startChild = (args: readonly string[]) => children.start(args);

/** The JSON-RPC answer in a POST's body (JSON, or the SSE event that carries it). */
function answerOf(body: string, id: number): Record<string, unknown> {
  const texts = body.startsWith('{') ? [body] : body.split('\n').flatMap((line) => (line.startsWith('data: ') ? [line.slice(6)] : []));
  for (const text of texts) {
    const message = JSON.parse(text) as Record<string, unknown>;
    if (message['id'] === id) return message;
  }
  throw new Error(`no answer to request ${id} in: ${body.slice(0, 300)}`);
}

interface Target {
  readonly id: string;
  readonly url: URL;
  readonly session: string;
}

let requestId = 1;
async function request(target: Target, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = ++requestId;
  const answer = await post(target.url, { jsonrpc: '2.0', id, method, params }, target.session).catch((error: unknown) => {
    throw new Error(`${target.id} ${method}: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (answer.status !== 200) throw new Error(`${target.id} ${method}: HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
  const message = answerOf(answer.body, id);
  if (message['error'] !== undefined) throw new Error(`${target.id} ${method}: ${JSON.stringify(message['error'])}`);
  return message['result'] as Record<string, unknown>;
}

/**
 * A session as a client opens one. Through `mcp-gate proxy --upstream-cmd` an initialize spawns the
 * session's upstream (node + tsx, 1,000 tools), which takes longer than raw-mcp's 10 s on a loaded
 * machine: initialize gets 120 s here.
 */
/**
 * One request as the timed loops send it: the answer's bytes are read to the end, but not parsed
 * (every target's answers were compared before timing); parsing 745 kB of tools/list here would
 * add the same client time to every target and hide the servers' difference.
 */
async function timedRequest(target: Target, method: string, params: Record<string, unknown>): Promise<void> {
  const id = ++requestId;
  const answer = await post(target.url, { jsonrpc: '2.0', id, method, params }, target.session);
  if (answer.status !== 200 || !answer.body.includes(`"id":${id}`) || !answer.body.includes('"result":')) {
    throw new Error(`${target.id} ${method}: HTTP ${answer.status}: ${answer.body.slice(0, 300)}`);
  }
}

async function openTarget(id: string, url: URL): Promise<Target> {
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
  const body = await response.text();
  if (response.status !== 200 || session === null || answerOf(body, 0)['error'] !== undefined)
    throw new Error(`${id}: initialize answered ${response.status}: ${body.slice(0, 300)}`);
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  if (initialized.status !== 202) throw new Error(`${id}: notifications/initialized answered ${initialized.status}`);
  return { id, url, session };
}

/** Times every request, rounds interleaved with a rotating first target; returns the sorted latencies (ns) per target. */
async function timeInterleaved(targets: readonly Target[], run: (target: Target) => Promise<unknown>, roundCount: number, perRound: number): Promise<number[][]> {
  for (const target of targets) for (let warm = 0; warm < Math.max(5, perRound); warm++) await run(target);
  const latencies: number[][] = targets.map(() => []);
  for (let round = 0; round < roundCount; round++) {
    for (let offset = 0; offset < targets.length; offset++) {
      const index = (round + offset) % targets.length;
      for (let call = 0; call < perRound; call++) {
        const start = process.hrtime.bigint();
        await run(targets[index]!);
        latencies[index]!.push(Number(process.hrtime.bigint() - start));
      }
    }
  }
  return latencies.map((values) => values.sort((a, b) => a - b));
}

/** JSON with every object's keys sorted: mcp-proxy re-serializes what its SDK client parsed, in another key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([left], [right]) => (left < right ? -1 : 1))) : item,
  );
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * q))]!;
const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`;

function report(title: string, targets: readonly Target[], latencies: number[][]): Record<string, { p50: number; p99: number; samples: number }> {
  console.log(`\n${title}`);
  const rows: Record<string, { p50: number; p99: number; samples: number }> = {};
  targets.forEach((target, index) => {
    const sorted = latencies[index]!;
    rows[target.id] = { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), samples: sorted.length };
    console.log(`  ${target.id.padEnd(16)} p50 ${ms(rows[target.id]!.p50).padStart(11)}   p99 ${ms(rows[target.id]!.p99).padStart(11)}   (${sorted.length} requests)`);
  });
  return rows;
}

const ratio = (rows: Record<string, { p50: number }>, left: string, right: string) => rows[left]!.p50 / rows[right]!.p50;

try {
  console.log(
    `bench:proxy — load average at start ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} (${process.env['NODE_ENV'] ?? 'no NODE_ENV'})`,
  );
  const upstreamHttp = startChild([...upstreamArgs, 'http']);
  const directUrl = await listeningUrl(upstreamHttp, 'the HTTP upstream');
  // One at a time: each proxy's startup check spawns an upstream, which a loaded machine starts slowly.
  const gate = startChild(benchProxyArgs({ policyPath, overlayPath }, ['--upstream-cmd', upstreamCommand]));
  const gateUrl = await listeningUrl(gate, 'mcp-gate proxy');
  const gateUrlMode = startChild(benchProxyArgs({ policyPath, overlayPath }, ['--upstream-url', directUrl.href]));
  const gateUrlModeUrl = await listeningUrl(gateUrlMode, 'mcp-gate proxy --upstream-url');
  const { url: mcpProxyUrl } = await startMcpProxy(children);
  const targets = [
    await openTarget('direct', directUrl),
    await openTarget('mcp-gate', gateUrl),
    await openTarget('mcp-gate (url)', gateUrlModeUrl),
    await until('mcp-proxy to accept a session', () => openTarget('mcp-proxy', mcpProxyUrl).catch(() => undefined)),
    await openTarget('direct again', directUrl),
  ];

  // The same answers from every target before any timing.
  const callParams = { name: 'tool-500', arguments: { query: 'hello', limit: 3 } };
  const expectedCall = canonicalJson(await request(targets[0]!, 'tools/call', callParams));
  const expectedList = canonicalJson(await request(targets[0]!, 'tools/list', {}));
  if ((JSON.parse(expectedList) as { tools: unknown[] }).tools.length !== 1000) throw new Error('the direct tools/list does not have 1,000 tools');
  for (const target of targets) {
    if (canonicalJson(await request(target, 'tools/call', callParams)) !== expectedCall) throw new Error(`${target.id}: tools/call answers differently; not timing it`);
    const list = canonicalJson(await request(target, 'tools/list', {}));
    if (list !== expectedList) {
      let at = 0;
      while (at < list.length && list[at] === expectedList[at]) at++;
      throw new Error(
        `${target.id}: tools/list answers differently; not timing it: …${list.slice(Math.max(0, at - 80), at + 80)}… instead of …${expectedList.slice(Math.max(0, at - 80), at + 80)}…`,
      );
    }
  }

  const callLatencies = await timeInterleaved(targets, (target) => timedRequest(target, 'tools/call', callParams), rounds, callsPerRound);
  const calls = report(`tools/call of one tool (${rounds} interleaved rounds x ${callsPerRound} requests per target)`, targets, callLatencies);
  console.log(
    `  mcp-gate / mcp-proxy p50 = ${ratio(calls, 'mcp-gate', 'mcp-proxy').toFixed(3)}x (goal <= 1.0x);` +
      ` mcp-gate / direct p50 = ${ratio(calls, 'mcp-gate', 'direct').toFixed(3)}x (goal <= 1.25x);` +
      ` mcp-gate (url) / direct = ${ratio(calls, 'mcp-gate (url)', 'direct').toFixed(3)}x; A/A direct again / direct = ${ratio(calls, 'direct again', 'direct').toFixed(3)}x`,
  );

  const listRounds = Math.max(6, Math.round(rounds / 3));
  const listLatencies = await timeInterleaved(targets, (target) => timedRequest(target, 'tools/list', {}), listRounds, 5);
  const lists = report(`tools/list of 1,000 tools (${listRounds} interleaved rounds x 5 requests per target)`, targets, listLatencies);
  console.log(
    `  mcp-gate / direct p50 = ${ratio(lists, 'mcp-gate', 'direct').toFixed(3)}x (goal <= 0.3x); mcp-proxy / direct = ${ratio(lists, 'mcp-proxy', 'direct').toFixed(3)}x;` +
      ` A/A direct again / direct = ${ratio(lists, 'direct again', 'direct').toFixed(3)}x`,
  );

  // Heap per proxied session: the proxy in this process, in front of the HTTP upstream (no process per session).
  const { perSessionKb, baseMb } = await measureProxyMemory({
    upstreamUrl: directUrl,
    policyDocument: proxyBenchPolicy,
    overlay: compileOverlay(proxyBenchOverlay),
    sessions: proxySessions,
    clientName,
  });
  console.log(
    `\nmemory: ${proxySessions} more proxied sessions (each initialized and listed once, upstream of 1,000 tools over HTTP): ${perSessionKb.toFixed(0)} kB of heap per session after GC (heap ${baseMb.toFixed(1)} MB before)`,
  );

  console.log(
    `load average at end ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
  writeResults('proxy-call.json', { loadavg: loadavg(), rounds, callsPerRound, calls, lists, proxySessions, perSessionKb });
} finally {
  closeAgent();
  children.killAll();
}

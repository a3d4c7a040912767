// npm run load: a bounded, self-stopping load run on 127.0.0.1. Many concurrent real SDK clients,
// each session a random caller (real client profiles, headers, endpoints) and each request a
// fresh context (a unique x-canary value), against the demo server gated by policies/demo.json
// and the same server ungated, in the same run. Every answer is checked against the policy;
// memory after GC must stay bounded while contexts never repeat. Exit code 1 on any error.
//
//   LOAD_REQUESTS (per host, default 12000)  LOAD_CLIENTS (concurrent, 24)  LOAD_SESSION (requests per session, 150)
import { readFileSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { createDemoServer, demoMetadata } from '../src/demo/demo-server.js';
import { createGate, type Gate } from '../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../src/serve/http-host.js';
import { callers, expectedView, readRegistry, type Caller, type ExpectedView } from '../src/testing/index.js';
import { operations, runSession, type PlannedSession, type Tally } from './load-workload.js';
import { collectGarbage, envInt } from './process-env.js';

/** What a host must answer: the view of one caller with one request's headers. */
type Oracle = (caller: Caller) => ExpectedView;

const totalRequests = envInt('LOAD_REQUESTS', 12_000);
const concurrency = envInt('LOAD_CLIENTS', 24);
const sessionLength = envInt('LOAD_SESSION', 150);
const rounds = 4;
const seed = envInt('LOAD_SEED', 20261130);
const heapGrowthLimitMb = 48;
const deadline = setTimeout(() => {
  console.error('load: still running after 10 minutes; stopping (this is a failure)');
  process.exit(1);
}, 600_000);

const policyPath = new URL('../policies/demo.json', import.meta.url);
const policy = compilePolicy(JSON.parse(readFileSync(policyPath, 'utf8')), { source: 'policies/demo.json' });
const registry = readRegistry(createDemoServer());

/** A seeded generator, so every run (and both hosts) sends exactly the same requests. */
function createRandom(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

let uniqueValue = 0;

/** Sessions totalling `requests` requests; every request carries an x-canary value never sent before (or "1"). */
function planSessions(requests: number, phaseSeed: number, oracle: Oracle): PlannedSession[] {
  const random = createRandom(phaseSeed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sessionCount = Math.ceil(requests / sessionLength);
  const sessionCallers = fc.sample(callers({ endpoints: ['/mcp', '/mcp/admin'] }), { seed: phaseSeed, numRuns: sessionCount });
  const toolNames = [...new Set([...registry.filter((primitive) => primitive.kind === 'tool').map((tool) => tool.key), 'search', 'no_such_tool'])];
  return sessionCallers.map((sampled, index) => {
    const caller: Caller = { ...sampled, auth: undefined };
    const size = Math.min(sessionLength, requests - index * sessionLength);
    return {
      caller,
      requests: Array.from({ length: size }, () => {
        const operation = pick(operations);
        const headers = { ...caller.headers, 'x-canary': random() < 0.25 ? '1' : `u${++uniqueValue}` };
        const tool = operation === 'tools/call' ? { tool: pick(toolNames) } : {};
        return { operation, headers, ...tool, expected: oracle({ ...caller, headers }) };
      }),
    };
  });
}

const gatedOracle: Oracle = (caller) => expectedView(policy, registry, caller, { metadata: demoMetadata });
const everything: ExpectedView = {
  tools: registry.filter((primitive) => primitive.kind === 'tool').map((tool) => tool.key),
  prompts: registry.filter((primitive) => primitive.kind === 'prompt').map((prompt) => prompt.key),
  resources: registry.filter((primitive) => primitive.kind === 'resource').map((resource) => resource.key),
  templates: registry.filter((primitive) => primitive.kind === 'resourceTemplate').map((template) => template.key),
};

/** A gate that installs nothing: the host then serves the plain SDK. */
const noGate: Gate = { policy, setPolicy: async () => undefined, install: () => undefined };

async function runPhase(host: HttpHost, sessions: readonly PlannedSession[], tally: Tally): Promise<number> {
  const queue = [...sessions];
  const started = performance.now();
  const worker = async () => {
    for (let session = queue.shift(); session !== undefined; session = queue.shift()) await runSession(host.url, session, tally);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}

function heapAfterGc(): number {
  for (let round = 0; round < 3; round++) collectGarbage();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const newTally = (): Tally => ({ requests: 0, errors: 0, mismatches: 0, problems: [] });

async function main(): Promise<void> {
  const gate = createGate({ policy, metadata: demoMetadata });
  const gatedHost = await startHttpHost({ createServer: createDemoServer, gate, port: 0 });
  const ungatedHost = await startHttpHost({ createServer: createDemoServer, gate: noGate, port: 0 });
  try {
    console.log(`load: ${totalRequests} requests per host, ${concurrency} concurrent clients, sessions of ${sessionLength}, seed ${seed}`);
    // Warm up both (JIT, schema caches), then measure in alternating rounds so drift hits both alike.
    const warmup = Math.max(100, Math.floor(totalRequests / 20));
    await runPhase(gatedHost, planSessions(warmup, seed - 1, gatedOracle), newTally());
    await runPhase(
      ungatedHost,
      planSessions(warmup, seed - 1, () => everything),
      newTally(),
    );
    const heapStart = heapAfterGc();
    const gated = { tally: newTally(), ms: 0 };
    const ungated = { tally: newTally(), ms: 0 };
    const heapSamples: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const requests = Math.floor(totalRequests / rounds) + (round < totalRequests % rounds ? 1 : 0);
      // Planned (and checked against the policy) before the clock starts; both hosts get the same requests.
      const forGated = planSessions(requests, seed + round, gatedOracle);
      const forUngated = forGated.map((session) => ({ ...session, requests: session.requests.map((request) => ({ ...request, expected: everything })) }));
      gated.ms += await runPhase(gatedHost, forGated, gated.tally);
      heapSamples.push(heapAfterGc());
      ungated.ms += await runPhase(ungatedHost, forUngated, ungated.tally);
    }
    const rate = (side: { tally: Tally; ms: number }) => side.tally.requests / (side.ms / 1000);
    const heapGrowth = Math.max(...heapSamples) - heapStart;
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      requestsPerHost: totalRequests,
      concurrency,
      sessionLength,
      uniqueContexts: uniqueValue,
      gated: { requestsPerSecond: Math.round(rate(gated)), ...counts(gated.tally) },
      ungated: { requestsPerSecond: Math.round(rate(ungated)), ...counts(ungated.tally) },
      gatedOverUngated: Number((rate(gated) / rate(ungated)).toFixed(3)),
      heapMb: { afterWarmup: round(heapStart), samples: heapSamples.map(round), growth: round(heapGrowth), limit: heapGrowthLimitMb },
    };
    console.log(`gated:   ${results.gated.requestsPerSecond} requests/s, ${gated.tally.errors} errors, ${gated.tally.mismatches} answers unlike the policy`);
    console.log(`ungated: ${results.ungated.requestsPerSecond} requests/s, ${ungated.tally.errors} errors, ${ungated.tally.mismatches} answers unlike the SDK's registry`);
    console.log(`gated / ungated throughput: ${results.gatedOverUngated}`);
    console.log(
      `heap after GC: ${results.heapMb.afterWarmup} MB after warm-up, ${results.heapMb.samples.join(' / ')} MB after each gated round (${uniqueValue} unique contexts)`,
    );
    for (const problem of [...gated.tally.problems, ...ungated.tally.problems]) console.log(`  problem: ${problem}`);
    writeFileSync(new URL('./results/load.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
    const failed = gated.tally.errors + gated.tally.mismatches + ungated.tally.errors + ungated.tally.mismatches > 0 || heapGrowth > heapGrowthLimitMb;
    if (heapGrowth > heapGrowthLimitMb) console.log(`FAIL: heap grew ${round(heapGrowth)} MB (limit ${heapGrowthLimitMb} MB)`);
    console.log(failed ? 'load: FAILED' : 'load: ok (results in bench/results/load.json)');
    process.exitCode = failed ? 1 : 0;
  } finally {
    await gatedHost.close();
    await ungatedHost.close();
    clearTimeout(deadline);
  }
}

function counts(tally: Tally) {
  return { requests: tally.requests, errors: tally.errors, mismatches: tally.mismatches };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

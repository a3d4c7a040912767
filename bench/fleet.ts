// npm run load:fleet: do replicas agree under load? Two `mcp-gate serve --policy-flag` processes
// (the built bin, stateless, the demo server) behind a round-robin balancer on 127.0.0.1, fed by
// one flagd flag file, as test/fleet/replicas.test.ts runs them, at a larger scale:
//
// 1. Load: FLEET_CLIENTS callers at once, FLEET_REQUESTS requests each (tools/list and
//    tools/call insights alternating), every answer compared with what the revision and flagd's
//    own fractional bucket of the caller (its in-process provider, in this process) say it must
//    be. Interleaved rounds through the balancer and straight to each replica (the two direct
//    rounds are the A/A control), with the throughput ratio balancer / direct.
// 2. Changes: FLEET_CHANGES policy changes written to the file while callers keep asking; for each,
//    the time until each replica answers with the new revision, and a check that no answer mixes
//    two revisions and that no replica goes back.
//
// Exit code 1 on any error, wrong answer, mixed answer or a change that does not arrive within
// 30 s. Prints os.loadavg() with the results; writes bench/results/fleet.json.
//
//   FLEET_CLIENTS (default 8)  FLEET_REQUESTS (per client and round, default 150)
//   FLEET_ROUNDS (default 3)  FLEET_CHANGES (default 6)  FLEET_POLL_MS (--flagd-poll-interval, default 100)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createBucketOracle,
  expectedTools,
  flagFile,
  fleetPolicy,
  post,
  revisionOf,
  runLoad,
  startBalancer,
  startReplica,
  toolNamesOf,
  writeAtomically,
  type LoadResult,
} from '../test/fleet/fleet-harness.js';
import { envInt } from './process-env.js';

const clients = envInt('FLEET_CLIENTS', 8);
const requestsPerClient = envInt('FLEET_REQUESTS', 150);
const rounds = envInt('FLEET_ROUNDS', 3);
const changes = envInt('FLEET_CHANGES', 6);
const pollMs = envInt('FLEET_POLL_MS', 100);
const bin = join(process.cwd(), 'dist', 'cli', 'main.js');
if (!existsSync(bin)) throw new Error('load:fleet runs the built bin: run "npm run build" first (npm run load:fleet does)');

const deadline = setTimeout(() => {
  console.error('load:fleet: still running after 15 minutes; stopping (this is a failure)');
  process.exit(1);
}, 900_000);

const loadBefore = loadavg();
const directory = await mkdtemp(join(tmpdir(), 'mcp-gate-load-fleet-'));
const flagsPath = join(directory, 'flags.json');
await writeAtomically(flagsPath, JSON.stringify(flagFile(fleetPolicy(1))));
const args = ['--stateless', '--policy-flag', 'mcp-policy', '--flagd-file', flagsPath, '--flagd-poll-interval', String(pollMs)];
const replicas = await Promise.all([0, 1].map(() => startReplica(bin, args, process.cwd())));
const balancer = await startBalancer(replicas.map((replica) => replica.url));
const oracle = await createBucketOracle(flagsPath);
const users = Array.from({ length: 200 }, (_, index) => `user-${index}@example.com`);
const buckets = new Map<string, boolean>();
for (const user of users) buckets.set(user, await oracle.inBucket(user));

const failures: string[] = [];
const percentile = (values: readonly number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? Number.NaN;

interface Measured {
  readonly target: string;
  readonly requests: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly perReplica: readonly number[];
}

let revision: 1 | 2 = 1;
async function measure(target: string, url: URL): Promise<Measured> {
  const started = performance.now();
  const result: LoadResult = await runLoad(url, { clients, requestsPerClient, users, buckets, revision });
  const seconds = (performance.now() - started) / 1000;
  if (result.errors > 0 || result.wrong > 0) failures.push(`${target}: ${result.errors} errors, ${result.wrong} wrong answers; first: ${result.firstProblem}`);
  return {
    target,
    requests: result.requests,
    seconds,
    perSecond: result.requests / seconds,
    p50Ms: percentile(result.latenciesMs, 50),
    p99Ms: percentile(result.latenciesMs, 99),
    perReplica: result.perReplica,
  };
}

// 1. Load, interleaved: balancer, replica 0, replica 1 in each round (the order rotates).
const targets: Array<[string, URL]> = [
  ['balancer (2 replicas)', balancer.url],
  ['replica 0 alone', replicas[0]!.url],
  ['replica 1 alone', replicas[1]!.url],
];
const measured: Measured[] = [];
for (let round = 0; round < rounds; round++) {
  for (let offset = 0; offset < targets.length; offset++) {
    const [name, url] = targets[(round + offset) % targets.length]!;
    measured.push(await measure(name, url));
  }
}
const summary = targets.map(([name]) => {
  const runs = measured.filter((run) => run.target === name);
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  return { target: name, requests, perSecond: requests / seconds, p50Ms: Math.max(...runs.map((run) => run.p50Ms)), p99Ms: Math.max(...runs.map((run) => run.p99Ms)) };
});

// 2. Changes while callers ask: per replica, the time from the write to its first answer on the new revision.
interface Change {
  readonly to: 1 | 2;
  readonly replicaMs: readonly number[];
  readonly answers: number;
}
const changeResults: Change[] = [];
for (let index = 0; index < changes; index++) {
  const from: 1 | 2 = revision;
  const to: 1 | 2 = from === 1 ? 2 : 1;
  const arrivedMs: Array<number | undefined> = [undefined, undefined];
  let answers = 0;
  let stop = false;
  const written = performance.now();
  await writeAtomically(flagsPath, JSON.stringify(flagFile(fleetPolicy(to))));
  const timer = setTimeout(() => (stop = true), 30_000);
  await Promise.all(
    Array.from({ length: 4 }, async (_, caller) => {
      for (let request = 0; !stop && arrivedMs.some((ms) => ms === undefined); request++) {
        const user = users[(caller * 50 + request) % users.length]!;
        const answer = await post(balancer.url, user, 'tools/list', {});
        answers++;
        const names = JSON.stringify(toolNamesOf(answer));
        const inBucket = buckets.get(user)!;
        if (names === JSON.stringify(expectedTools(to, inBucket))) arrivedMs[answer.replica] ??= performance.now() - written;
        else if (names !== JSON.stringify(expectedTools(from, inBucket)))
          failures.push(`change ${index + 1}: ${user} via replica ${answer.replica} got ${names}: neither revision`);
        else if (arrivedMs[answer.replica] !== undefined) failures.push(`change ${index + 1}: replica ${answer.replica} answered the old revision after the new one`);
      }
    }),
  );
  clearTimeout(timer);
  if (arrivedMs.some((ms) => ms === undefined)) failures.push(`change ${index + 1} to revision ${revisionOf(fleetPolicy(to))} did not reach every replica within 30 s`);
  revision = to;
  changeResults.push({ to, replicaMs: arrivedMs.map((ms) => ms ?? Number.NaN), answers });
}
// After the changes, every caller is answered on the last revision by both.
measured.push(await measure('balancer after the changes', balancer.url));

await balancer.close();
await oracle.close();
const codes = await Promise.all(replicas.map((replica) => replica.stop()));
if (codes.some((code) => code !== 0)) failures.push(`replicas exited ${codes.join(', ')}`);
await rm(directory, { recursive: true, force: true });
clearTimeout(deadline);

const loadAfter = loadavg();
const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log(
  `load:fleet: 2 replicas (built bin, --stateless, demo server), one flag file polled every ${pollMs} ms; ${clients} callers × ${requestsPerClient} requests per round, ${rounds} rounds`,
);
console.log(`loadavg before ${loadBefore.map((value) => fixed(value, 2)).join(' ')}, after ${loadAfter.map((value) => fixed(value, 2)).join(' ')}`);
const direct = summary.filter((row) => row.target !== 'balancer (2 replicas)');
for (const row of summary)
  console.log(
    `  ${row.target.padEnd(22)} ${String(row.requests).padStart(6)} requests  ${fixed(row.perSecond).padStart(7)} req/s  p50 ${fixed(row.p50Ms)} ms  p99 ${fixed(row.p99Ms)} ms (worst round)`,
  );
console.log(
  `  ratio balancer / mean of direct: ${fixed(summary[0]!.perSecond / ((direct[0]!.perSecond + direct[1]!.perSecond) / 2), 2)}×; A/A replica 1 / replica 0: ${fixed(direct[1]!.perSecond / direct[0]!.perSecond, 2)}×`,
);
const allMs = changeResults.flatMap((change) => change.replicaMs);
console.log(
  `  ${changes} changes: first answer on the new revision after ${changeResults.map((change) => change.replicaMs.map((ms) => fixed(ms, 0)).join('/')).join(', ')} ms (replica 0/1); median ${fixed(percentile(allMs, 50), 0)} ms, max ${fixed(Math.max(...allMs), 0)} ms; poll interval ${pollMs} ms`,
);
const total = measured.reduce((sum, run) => sum + run.requests, 0) + changeResults.reduce((sum, change) => sum + change.answers, 0);
console.log(`  ${total} answers checked: ${failures.length === 0 ? '0 errors, 0 wrong, 0 mixed' : `${failures.length} problems`}`);
for (const failure of failures.slice(0, 10)) console.log(`  FAIL ${failure}`);

mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/fleet.json',
  `${JSON.stringify({ clients, requestsPerClient, rounds, pollMs, loadBefore, loadAfter, summary, runs: measured, changes: changeResults, failures }, null, 2)}\n`,
);
process.exitCode = failures.length === 0 ? 0 : 1;

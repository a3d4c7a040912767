// npm run bench:decision-log: does the decision log tell a hidden tool from an unknown name by time?
// `mcp-gate serve --decision-log FILE` (the real command in its own process, demo server,
// policies/demo.json) over 127.0.0.1; one session; tools/call of a hidden tool (deploy_preview
// without x-canary) and of two names never registered, of the same length, interleaved round by
// round. The answers are checked to be identical but for the name before any timing. Prints the
// medians side by side: hidden − unknown should be within the noise of unknown − unknown. (Before
// the log was written off the response path, hidden − unknown was 165–190 µs here; with the
// explanation still built in the request, 30–45 µs.) The rotation puts unknownA right after
// the hidden call two times in three, so it pays more of the deferred log line written after
// that call (about 20 µs more than unknownB here): unknownB − unknownA carries that, not only
// noise. bench/decision-event-cost.ts measures the gate's own part in process, without HTTP.
// TIMING_NO_LOG=1 serves without --decision-log, for comparison.
//
//   TIMING_ROUNDS (default 3000)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeAgent, openSession, post } from './raw-mcp.js';
import { startServeProcess } from './serve-process.js';

const rounds = Number(process.env['TIMING_ROUNDS'] ?? 3000);
if (!Number.isSafeInteger(rounds) || rounds < 10) throw new TypeError('TIMING_ROUNDS must be an integer ≥ 10');
const deadline = setTimeout(() => {
  console.error('decision-log-timing: still running after 5 minutes; stopping (this is a failure)');
  process.exit(1);
}, 300_000);

const names = { hidden: 'deploy_preview', unknownA: 'deploy_previex', unknownB: 'deploy_reviews' } as const;
type CaseName = keyof typeof names;
const order: readonly CaseName[] = ['hidden', 'unknownA', 'unknownB'];

const directory = mkdtempSync(join(tmpdir(), 'mcp-gate-timing-'));
const logPath = join(directory, 'decisions.jsonl');
const logArgs = process.env['TIMING_NO_LOG'] === '1' ? [] : ['--decision-log', logPath];
const serving = await startServeProcess(['--policy', 'policies/demo.json', ...logArgs]);

let id = 1;
function call(url: URL, sessionId: string, name: string) {
  return post(url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: { branch: 'x' } } }, sessionId);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

try {
  const url = serving.url;
  const sessionId = await openSession(url);
  // Correctness first: the three answers differ only in the name (hidden ≡ unknown).
  const bodies = await Promise.all(order.map(async (which) => (await call(url, sessionId, names[which])).body.replace(/"id":\d+/, '"id":0').replace(names[which], 'NAME')));
  if (new Set(bodies).size !== 1) throw new Error(`answers differ:\n${bodies.join('\n')}`);

  const samples: Record<CaseName, number[]> = { hidden: [], unknownA: [], unknownB: [] };
  for (let round = 0; round < rounds + 200; round++) {
    for (let index = 0; index < order.length; index++) {
      const which = order[(round + index) % order.length]!;
      const start = process.hrtime.bigint();
      await call(url, sessionId, names[which]);
      const elapsed = Number(process.hrtime.bigint() - start) / 1000;
      if (round >= 200) samples[which].push(elapsed); // the first 200 rounds warm up
    }
  }
  const medians = Object.fromEntries(order.map((which) => [which, median(samples[which])])) as Record<CaseName, number>;
  const paired = (a: CaseName, b: CaseName) => median(samples[a].map((value, index) => value - samples[b][index]!));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const logged =
    logArgs.length === 0
      ? 0
      : readFileSync(logPath, 'utf8')
          .split('\n')
          .filter((line) => line.includes('"tools/call"')).length;
  const mode = logArgs.length === 0 ? 'without --decision-log' : 'with --decision-log';
  console.log(`decision-log timing, ${rounds} rounds, tools/call over 127.0.0.1 ${mode} (median µs per call)`);
  for (const which of order) console.log(`  ${which.padEnd(9)} ${names[which].padEnd(15)} ${medians[which].toFixed(1).padStart(8)} µs`);
  console.log('  paired medians (round by round, so drift in machine load cancels):');
  console.log(`  hidden − unknownA   ${paired('hidden', 'unknownA').toFixed(1).padStart(7)} µs`);
  console.log(`  hidden − unknownB   ${paired('hidden', 'unknownB').toFixed(1).padStart(7)} µs`);
  console.log(`  unknownB − unknownA ${paired('unknownB', 'unknownA').toFixed(1).padStart(7)} µs   (the noise floor: two unknown names)`);
  console.log(`  decision-log lines for tools/call: ${logged}`);
} finally {
  await serving.stop();
  closeAgent();
  rmSync(directory, { recursive: true, force: true });
  clearTimeout(deadline);
}

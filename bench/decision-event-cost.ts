// npx tsx bench/decision-event-cost.ts: what the gate itself does on the response path for a decision
// log, in process (no HTTP noise). The demo server behind policies/demo.json, called through its
// stored tools/call handler: a hidden tool and an unknown name, with and without an onDecision
// listener that only queues the event (as `mcp-gate serve --decision-log` does). Prints medians in
// µs; the hidden − unknown difference with a listener should equal the one without.
import { readFileSync } from 'node:fs';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { createDemoServer, demoMetadata } from '../src/demo/demo-server.js';
import { createGate } from '../src/sdk/index.js';
import { createHttpExtra, measureAsync, storedHandler } from './sdk-harness.js';

const policy = compilePolicy(JSON.parse(readFileSync('policies/demo.json', 'utf8')));

function serverWith(onDecision: ((event: unknown) => void) | undefined) {
  const server = createDemoServer();
  createGate({ policy, metadata: demoMetadata, ...(onDecision ? { onDecision } : {}) }).install(server);
  return storedHandler(server, 'tools/call');
}

let queued = 0;
const logged = serverWith(() => void queued++);
const silent = serverWith(undefined);
let id = 1;
const call = (handler: ReturnType<typeof storedHandler>, name: string) => () =>
  handler({ method: 'tools/call', params: { name, arguments: { branch: 'x' } } }, createHttpExtra(id++)).catch((error: unknown) => error);

// Correctness first: a hidden tool is rejected exactly as an unknown name is.
const [hidden, unknown] = await Promise.all([call(logged, 'deploy_preview')(), call(logged, 'deploy_previex')()]);
if (String(hidden).replace('deploy_preview', 'NAME') !== String(unknown).replace('deploy_previex', 'NAME')) throw new Error(`answers differ: ${hidden} / ${unknown}`);

const results = await measureAsync(
  [
    { id: 'logged hidden', run: call(logged, 'deploy_preview') },
    { id: 'logged unknown', run: call(logged, 'deploy_previex') },
    { id: 'silent hidden', run: call(silent, 'deploy_preview') },
    { id: 'silent unknown', run: call(silent, 'deploy_previex') },
  ],
  { warmup: 2000, samples: 300, batch: 50 },
);
const p50 = Object.fromEntries(results.map((result) => [result.id, result.p50 / 1000]));
console.log('decision event cost, demo server, stored tools/call handler (median µs per call)');
for (const result of results) console.log(`  ${result.id.padEnd(15)} ${(result.p50 / 1000).toFixed(2).padStart(7)} µs`);
console.log(`  hidden − unknown with onDecision:    ${(p50['logged hidden']! - p50['logged unknown']!).toFixed(2)} µs`);
console.log(`  hidden − unknown without onDecision: ${(p50['silent hidden']! - p50['silent unknown']!).toFixed(2)} µs`);
console.log(`  events: ${queued}`);

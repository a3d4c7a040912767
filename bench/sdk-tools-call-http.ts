// tools/call for one HTTP-shaped request (issue 11 item 11): eight headers including accept,
// content-type, user-agent and mcp-protocol-version; auth with scopes; the URL /mcp/admin.
// Two interleaved A/B/A' runs: ungated, gated, and a second ungated server as the A/A control, so
// each gated/ungated ratio is printed beside the noise floor of the same run. First over the
// in-memory transport (the SDK's Client → InMemoryTransport → Protocol → handler, the request
// info and auth delivered as a Streamable HTTP transport delivers them: the shape issue 11 names),
// then at handler level (the stored handler called with the `extra` the protocol would build).
// Run: npm run bench:call-http (ROUNDS=n repeats both runs n times).

import { routeToolCall } from '../src/adapter/routing.js';
import { createPolicyHolder } from '../src/adapter/gate-runtime.js';
import { readGateSettings } from '../src/adapter/gate-options.js';
import { contextPlanFor } from '../src/adapter/context-plan.js';
import { Installation } from '../src/sdk/installation.js';
import { buildRequestContext, createContextBuilder } from '../src/sdk/request-context.js';
import { availableParallelism, loadavg } from 'node:os';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  assertSameJson,
  benchPolicy,
  clockNs,
  connectClient,
  createBenchServer,
  createHttpExtra,
  formatNs,
  measureAsync,
  storedHandler,
  type AsyncCase,
} from './sdk-harness.js';

const request = { method: 'tools/call', params: { name: 'tool-500', arguments: { query: 'hello', limit: 3 } } };
const ungatedCall = storedHandler(createBenchServer(false), 'tools/call');
const gatedCall = storedHandler(createBenchServer(true), 'tools/call');
const controlCall = storedHandler(createBenchServer(false), 'tools/call');

const expected = await ungatedCall(request, createHttpExtra(1));
assertSameJson('tools/call (HTTP-shaped, gated)', await gatedCall(request, createHttpExtra(1)), expected);
assertSameJson('tools/call (HTTP-shaped, control)', await controlCall(request, createHttpExtra(1)), expected);

const [ungatedClient, gatedClient, controlClient] = [
  await connectClient(createBenchServer(false), { http: true }),
  await connectClient(createBenchServer(true), { http: true }),
  await connectClient(createBenchServer(false), { http: true }),
];
const callRequest = { method: 'tools/call' as const, params: request.params };
const expectedOverTransport = await ungatedClient.request(callRequest, CallToolResultSchema);
assertSameJson('tools/call (in-memory transport, gated)', await gatedClient.request(callRequest, CallToolResultSchema), expectedOverTransport);
assertSameJson('tools/call (in-memory transport, control)', await controlClient.request(callRequest, CallToolResultSchema), expectedOverTransport);

/** Prints one A/B/A' result line: p50s, gated over the mean of both ungated runs, and the A/A control. */
async function compare(label: string, cases: [AsyncCase, AsyncCase, AsyncCase], batch: number): Promise<void> {
  const [ungated, gated, control] = await measureAsync(cases, { warmup: 2000, samples: 61, batch, clock: 'cpu' });
  const baseline = (ungated!.p50 + control!.p50) / 2;
  console.log(
    `  ${label}: ungated ${formatNs(ungated!.p50)}, gated ${formatNs(gated!.p50)}, ungated again ${formatNs(control!.p50)}` +
      ` | gated/ungated = ${(gated!.p50 / baseline).toFixed(3)}x (target <= 1.03x), A/A control = ${(control!.p50 / ungated!.p50).toFixed(3)}x` +
      ` | load ${loadavg()[0]!.toFixed(1)}`,
  );
}

let requestId = 0;
const rounds = Number(process.env['ROUNDS'] ?? 3);
console.log(
  'tools/call, HTTP-shaped request (8 headers, auth with scopes, /mcp/admin): p50 of interleaved batches by CPU time,' +
    ` with the 1-minute load average (${availableParallelism()} cores)`,
);
for (let round = 1; round <= rounds; round++) {
  await compare(
    `run ${round}, in-memory transport`,
    [
      { id: 'ungated', run: () => ungatedClient.request(callRequest, CallToolResultSchema) },
      { id: 'gated', run: () => gatedClient.request(callRequest, CallToolResultSchema) },
      { id: 'ungated-again', run: () => controlClient.request(callRequest, CallToolResultSchema) },
    ],
    200,
  );
  await compare(
    `run ${round}, handler level    `,
    [
      { id: 'ungated', run: () => ungatedCall(request, createHttpExtra(++requestId)) },
      { id: 'gated', run: () => gatedCall(request, createHttpExtra(++requestId)) },
      { id: 'ungated-again', run: () => controlCall(request, createHttpExtra(++requestId)) },
    ],
    400,
  );
}
await Promise.all([ungatedClient.close(), gatedClient.close(), controlClient.close()]);

// Where the gated path's time goes, per call, on the same request (synchronous parts timed by CPU
// time in plain loops over 1,000 prepared extras): the whole gate before the SDK's handler (begin +
// route); a session's context for a request carrying the values of its previous one (reused,
// src/sdk/request-context.ts); and building a context, as a session's first request does.
const holder = createPolicyHolder(benchPolicy, readGateSettings({ policy: benchPolicy }));
const installation = new Installation(createBenchServer(false), holder.runtime);
const plan = contextPlanFor(holder.runtime.currentView(), installation.catalog(), installation.settings);
const extras = Array.from({ length: 1000 }, (_, index) => createHttpExtra(index) as Parameters<Installation['begin']>[1]);
const contextFor = createContextBuilder(installation.server.server);
const parts: Record<string, (extra: Parameters<Installation['begin']>[1]) => unknown> = {
  'begin + route (the gate before the SDK)': (extra) => routeToolCall(installation.begin('tools/call', extra), 'tool-500'),
  "a session's context, reused": (extra) => contextFor('tools/call', extra, plan),
  'building a context (first request)': (extra) => buildRequestContext('tools/call', extra, installation.server.server, plan),
};
const partTimes = new Map<string, number[]>();
for (let round = 0; round < 9; round++) {
  for (const [label, run] of Object.entries(parts)) {
    const start = clockNs('cpu');
    for (let repeat = 0; repeat < 100; repeat++) for (const extra of extras) run(extra);
    if (round >= 2) partTimes.set(label, [...(partTimes.get(label) ?? []), (clockNs('cpu') - start) / (100 * extras.length)]);
  }
}
for (const [label, times] of partTimes) console.log(`  ${label}: ${formatNs(times.sort((a, b) => a - b)[times.length >> 1]!)} per call (p50)`);

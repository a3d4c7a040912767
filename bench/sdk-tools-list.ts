// tools/list of 1,000 zod-typed tools: the gated McpServer (cached definitions, filtered per
// context) against the ungated SDK, which converts every schema to JSON Schema on every call.
// Run: npx tsx bench/sdk-tools-list.ts

import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { assertSameJson, benchPolicy, connectClient, createBenchServer, createExtra, formatNs, measureAsync, storedHandler, toolCount, writeResults } from './sdk-harness.js';

const ungated = createBenchServer(false);
const gated = createBenchServer(true);
const request = { method: 'tools/list', params: {} };
const ungatedList = storedHandler(ungated, 'tools/list');
const gatedList = storedHandler(gated, 'tools/list');

// Correctness first: the same 1,000 definitions, byte for byte.
const [ungatedResult, gatedResult] = [await ungatedList(request, createExtra(1)), await gatedList(request, createExtra(1))];
assertSameJson('tools/list (handler)', gatedResult, ungatedResult);
if ((gatedResult as { tools: unknown[] }).tools.length !== toolCount) throw new Error('expected every tool to be visible');

const [ungatedClient, gatedClient] = [await connectClient(createBenchServer(false)), await connectClient(createBenchServer(true))];
assertSameJson('tools/list (client)', await gatedClient.listTools(), await ungatedClient.listTools());

// `handler.gated-new-context`: every request carries a header value the policy reads that no
// earlier request had, so the visible list is computed afresh (1,000 evaluations) each time.
let requestId = 0;
const newContextExtra = () => {
  const extra = createExtra(++requestId) as { requestInfo: { headers: Record<string, string> } };
  extra.requestInfo.headers['x-internal'] = `caller-${requestId}`;
  return extra;
};
const handlerResults = await measureAsync(
  [
    { id: 'handler.ungated', run: () => ungatedList(request, createExtra(++requestId)) },
    { id: 'handler.gated', run: () => gatedList(request, createExtra(++requestId)) },
    { id: 'handler.gated-new-context', run: () => gatedList(request, newContextExtra()) },
  ],
  { warmup: 5, samples: 25, batch: 4 },
);
// client.request rather than listTools: listTools also compiles an ajv validator per output
// schema on the client, which would swamp what the server does.
const listRequest = { method: 'tools/list' as const, params: {} };
const clientResults = await measureAsync(
  [
    { id: 'client.ungated', run: () => ungatedClient.request(listRequest, ListToolsResultSchema) },
    { id: 'client.gated', run: () => gatedClient.request(listRequest, ListToolsResultSchema) },
  ],
  { warmup: 5, samples: 25, batch: 2 },
);

const p50 = (results: typeof handlerResults, id: string) => results.find((result) => result.id === id)!.p50;
const handlerRatio = p50(handlerResults, 'handler.gated') / p50(handlerResults, 'handler.ungated');
const newContextRatio = p50(handlerResults, 'handler.gated-new-context') / p50(handlerResults, 'handler.ungated');
const clientRatio = p50(clientResults, 'client.gated') / p50(clientResults, 'client.ungated');
console.log(`tools/list, ${toolCount} tools (p50, same run)`);
for (const result of [...handlerResults, ...clientResults]) console.log(`  ${result.id.padEnd(26)} ${formatNs(result.p50).padStart(10)}`);
console.log(`  server handler: gated/ungated = ${handlerRatio.toFixed(3)}x (target <= 0.2x)`);
console.log(`  server handler, a new context every request: gated/ungated = ${newContextRatio.toFixed(3)}x`);
console.log(`  client round trip over InMemoryTransport (includes the client's zod validation of 1,000 tools): gated/ungated = ${clientRatio.toFixed(3)}x`);
writeResults('sdk-tools-list.json', {
  bench: 'sdk-tools-list',
  node: process.version,
  tools: toolCount,
  policyRevision: benchPolicy.revision,
  results: [...handlerResults, ...clientResults],
  ratios: { handlerGatedOverUngated: handlerRatio, handlerNewContextGatedOverUngated: newContextRatio, clientGatedOverUngated: clientRatio },
});
await Promise.all([ungatedClient.close(), gatedClient.close()]);

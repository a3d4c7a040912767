// tools/call on a 1,000-tool server: the gated McpServer (context built, policy evaluated, then
// the SDK's own handler) against the ungated SDK. Run: npx tsx bench/sdk-tools-call.ts

import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { assertSameJson, benchPolicy, connectClient, createBenchServer, createExtra, formatNs, measureAsync, storedHandler, writeResults } from './sdk-harness.js';

const ungated = createBenchServer(false);
const gated = createBenchServer(true);
const request = { method: 'tools/call', params: { name: 'tool-500', arguments: { query: 'hello', limit: 3 } } };
const ungatedCall = storedHandler(ungated, 'tools/call');
const gatedCall = storedHandler(gated, 'tools/call');

assertSameJson('tools/call (handler)', await gatedCall(request, createExtra(1)), await ungatedCall(request, createExtra(1)));
const [ungatedClient, gatedClient] = [await connectClient(createBenchServer(false)), await connectClient(createBenchServer(true))];
const callRequest = { method: 'tools/call' as const, params: request.params };
assertSameJson(
  'tools/call (client)',
  await gatedClient.request(callRequest, CallToolResultSchema),
  await ungatedClient.request(callRequest, CallToolResultSchema),
);

// Two request shapes: with HTTP request info (headers, URL: the context is built per request) and
// without (stdio, in-memory: the session's context is reused while its inputs are unchanged).
let requestId = 0;
const stdioExtra = () => ({ ...(createExtra(++requestId) as object), requestInfo: undefined });
const handlerResults = await measureAsync(
  [
    { id: 'handler.ungated', run: () => ungatedCall(request, createExtra(++requestId)) },
    { id: 'handler.gated', run: () => gatedCall(request, createExtra(++requestId)) },
    { id: 'handler.ungated-stdio', run: () => ungatedCall(request, stdioExtra()) },
    { id: 'handler.gated-stdio', run: () => gatedCall(request, stdioExtra()) },
  ],
  { warmup: 2000, samples: 41, batch: 500 },
);
const clientResults = await measureAsync(
  [
    { id: 'client.ungated', run: () => ungatedClient.request(callRequest, CallToolResultSchema) },
    { id: 'client.gated', run: () => gatedClient.request(callRequest, CallToolResultSchema) },
  ],
  { warmup: 2000, samples: 41, batch: 300 },
);

const p50 = (results: typeof handlerResults, id: string) => results.find((result) => result.id === id)!.p50;
const handlerRatio = p50(handlerResults, 'handler.gated') / p50(handlerResults, 'handler.ungated');
const stdioRatio = p50(handlerResults, 'handler.gated-stdio') / p50(handlerResults, 'handler.ungated-stdio');
const clientRatio = p50(clientResults, 'client.gated') / p50(clientResults, 'client.ungated');
console.log('tools/call on a 1,000-tool server (p50, same run)');
for (const result of [...handlerResults, ...clientResults]) console.log(`  ${result.id.padEnd(22)} ${formatNs(result.p50).padStart(10)}`);
console.log(`  server handler, HTTP-shaped request (context built per request): gated/ungated = ${handlerRatio.toFixed(3)}x`);
console.log(`  server handler, stdio-shaped request: gated/ungated = ${stdioRatio.toFixed(3)}x`);
console.log(`  client round trip over InMemoryTransport: gated/ungated = ${clientRatio.toFixed(3)}x (target <= 1.05x)`);
writeResults('sdk-tools-call.json', {
  bench: 'sdk-tools-call',
  node: process.version,
  policyRevision: benchPolicy.revision,
  results: [...handlerResults, ...clientResults],
  ratios: { handlerGatedOverUngated: handlerRatio, handlerStdioGatedOverUngated: stdioRatio, clientGatedOverUngated: clientRatio },
});
await Promise.all([ungatedClient.close(), gatedClient.close()]);

// tools/call on a 1,000-tool server: the gated McpServer (context built, policy evaluated, then
// the SDK's own handler) against the ungated SDK. Run: npx tsx bench/sdk-tools-call.ts

import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  assertSameJson,
  benchPolicy,
  connectClient,
  createBenchServer,
  createExtra,
  createStdioExtra,
  createHttpExtra,
  formatNs,
  measureAsync,
  storedHandler,
  writeResults,
} from './sdk-harness.js';

const ungated = createBenchServer(false);
const gated = createBenchServer(true);
const request = { method: 'tools/call', params: { name: 'tool-500', arguments: { query: 'hello', limit: 3 } } };
const ungatedCall = storedHandler(ungated, 'tools/call');
const gatedCall = storedHandler(gated, 'tools/call');

assertSameJson('tools/call (handler)', await gatedCall(request, createExtra(1)), await ungatedCall(request, createExtra(1)));
assertSameJson('tools/call (handler, HTTP-shaped)', await gatedCall(request, createHttpExtra(1)), await ungatedCall(request, createHttpExtra(1)));
const [ungatedClient, gatedClient] = [await connectClient(createBenchServer(false)), await connectClient(createBenchServer(true))];
const [ungatedHttpClient, gatedHttpClient] = [await connectClient(createBenchServer(false), { http: true }), await connectClient(createBenchServer(true), { http: true })];
const callRequest = { method: 'tools/call' as const, params: request.params };
for (const [label, mine, theirs] of [
  ['tools/call (client)', gatedClient, ungatedClient],
  ['tools/call (client, HTTP-shaped)', gatedHttpClient, ungatedHttpClient],
] as const) {
  assertSameJson(label, await mine.request(callRequest, CallToolResultSchema), await theirs.request(callRequest, CallToolResultSchema));
}

// Three request shapes: with minimal HTTP request info (two headers, a URL: the context is built
// per request); a real HTTP request's (eight headers including accept, content-type, user-agent
// and mcp-protocol-version, auth with scopes, the URL /mcp/admin: sdk-harness.ts's
// createHttpExtra); and none (stdio, in-memory: the session's context is reused while its
// inputs are unchanged).
let requestId = 0;
const stdioExtra = () => createStdioExtra(++requestId);
const handlerResults = await measureAsync(
  [
    { id: 'handler.ungated', run: () => ungatedCall(request, createExtra(++requestId)) },
    { id: 'handler.gated', run: () => gatedCall(request, createExtra(++requestId)) },
    { id: 'handler.ungated-http8', run: () => ungatedCall(request, createHttpExtra(++requestId)) },
    { id: 'handler.gated-http8', run: () => gatedCall(request, createHttpExtra(++requestId)) },
    { id: 'handler.ungated-stdio', run: () => ungatedCall(request, stdioExtra()) },
    { id: 'handler.gated-stdio', run: () => gatedCall(request, stdioExtra()) },
  ],
  { warmup: 2000, samples: 41, batch: 500 },
);
const clientResults = await measureAsync(
  [
    { id: 'client.ungated', run: () => ungatedClient.request(callRequest, CallToolResultSchema) },
    { id: 'client.gated', run: () => gatedClient.request(callRequest, CallToolResultSchema) },
    { id: 'client.ungated-http8', run: () => ungatedHttpClient.request(callRequest, CallToolResultSchema) },
    { id: 'client.gated-http8', run: () => gatedHttpClient.request(callRequest, CallToolResultSchema) },
  ],
  { warmup: 2000, samples: 41, batch: 300 },
);

const p50 = (results: typeof handlerResults, id: string) => results.find((result) => result.id === id)!.p50;
const handlerRatio = p50(handlerResults, 'handler.gated') / p50(handlerResults, 'handler.ungated');
const http8Ratio = p50(handlerResults, 'handler.gated-http8') / p50(handlerResults, 'handler.ungated-http8');
const clientHttp8Ratio = p50(clientResults, 'client.gated-http8') / p50(clientResults, 'client.ungated-http8');
const stdioRatio = p50(handlerResults, 'handler.gated-stdio') / p50(handlerResults, 'handler.ungated-stdio');
const clientRatio = p50(clientResults, 'client.gated') / p50(clientResults, 'client.ungated');
console.log('tools/call on a 1,000-tool server (p50, same run)');
for (const result of [...handlerResults, ...clientResults]) console.log(`  ${result.id.padEnd(22)} ${formatNs(result.p50).padStart(10)}`);
console.log(`  server handler, HTTP-shaped request (2 headers, context built per request): gated/ungated = ${handlerRatio.toFixed(3)}x`);
console.log(`  server handler, HTTP request (8 headers, auth with scopes, /mcp/admin): gated/ungated = ${http8Ratio.toFixed(3)}x (target <= 1.03x)`);
console.log(`  server handler, stdio-shaped request: gated/ungated = ${stdioRatio.toFixed(3)}x`);
console.log(`  client round trip over InMemoryTransport: gated/ungated = ${clientRatio.toFixed(3)}x (target <= 1.05x)`);
console.log(`  client round trip over InMemoryTransport, HTTP request (8 headers, auth, /mcp/admin): gated/ungated = ${clientHttp8Ratio.toFixed(3)}x (target <= 1.03x)`);
writeResults('sdk-tools-call.json', {
  bench: 'sdk-tools-call',
  node: process.version,
  policyRevision: benchPolicy.revision,
  results: [...handlerResults, ...clientResults],
  ratios: {
    handlerGatedOverUngated: handlerRatio,
    handlerHttp8GatedOverUngated: http8Ratio,
    handlerStdioGatedOverUngated: stdioRatio,
    clientGatedOverUngated: clientRatio,
    clientHttp8GatedOverUngated: clientHttp8Ratio,
  },
});
await Promise.all([ungatedClient.close(), gatedClient.close(), ungatedHttpClient.close(), gatedHttpClient.close()]);

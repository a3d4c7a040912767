// The upstream of bench/proxy-call.ts, in its own process: the 1,000-tool bench server
// (sdk-harness.ts, ungated) over stdio (`stdio`), or over Streamable HTTP on 127.0.0.1 with a
// session per client (`http`, prints "listening on URL" to stderr).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startHttpHost } from '../src/serve/http-host.js';
import { createBenchServer } from './sdk-harness.js';

const mode = process.argv[2];
if (mode === 'stdio') {
  await createBenchServer(false).connect(new StdioServerTransport());
} else if (mode === 'http') {
  const host = await startHttpHost({ createServer: () => createBenchServer(false), gate: { install() {} }, port: 0, sessionIdleTimeoutMs: 0 });
  process.stderr.write(`listening on ${host.url.href}\n`);
} else {
  throw new Error(`usage: proxy-upstream.ts stdio|http, got ${String(mode)}`);
}

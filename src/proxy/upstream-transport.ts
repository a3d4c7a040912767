import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { UpstreamSpec } from './upstream-command.js';
import { upstreamFetch } from './upstream-fetch.js';

export interface UpstreamTransportOptions {
  /** Working directory of a spawned upstream. */
  readonly cwd: string;
  /** Receives the spawned upstream's stderr, line by line. */
  readonly onStderrLine?: (line: string) => void;
  /** Headers of every request to an HTTP upstream (upstream-headers.ts: the CLI refuses the names the transport sets itself). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A new transport to the upstream: for a command, a new process (spawned without a shell, with
 * the proxy's environment, as a wrapper is expected to pass it on); for a URL, a new Streamable
 * HTTP session (or HTTP+SSE connection) with `options.headers` and nothing of the client's
 * request besides: its `Authorization` never reaches the upstream.
 */
export function openUpstreamTransport(spec: UpstreamSpec, options: UpstreamTransportOptions): Transport {
  if (spec.kind === 'url') {
    const requestInit = { headers: { ...options.headers } };
    // The legacy transport: a GET event stream the server answers on, and POSTs to the endpoint it names.
    return spec.transport === 'sse' ? new SSEClientTransport(spec.url, { requestInit }) : new StreamableHTTPClientTransport(spec.url, { requestInit, fetch: upstreamFetch });
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...spec.args],
    cwd: options.cwd,
    env: Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    stderr: 'pipe',
  });
  const onLine = options.onStderrLine;
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line !== '') onLine?.(line);
  });
  return transport;
}

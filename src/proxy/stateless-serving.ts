// `mcp-gate proxy` serving 2026-07-28 stateless requests, when its upstream speaks 2026-07-28.
// Loaded by proxy-runtime.ts only for a Streamable HTTP upstream, and only if the v2 client
// package (`@modelcontextprotocol/client`, an optional peer) is installed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WireGate } from '../wire/wire-gate.js';
import { StatelessConnections } from './stateless-connections.js';
import { createStatelessHandler, isStatelessRequest } from './stateless-requests.js';
import { connectStatelessUpstream, upstreamSpeaksStateless } from './stateless-upstream.js';

/** Where stateless requests go upstream: the Streamable HTTP URL, and the headers for a request with given downstream headers. */
export interface StatelessUpstream {
  readonly url: URL;
  readonly headers: (downstream: Readonly<Record<string, string | string[] | undefined>>) => Readonly<Record<string, string>>;
}

export interface StatelessServing {
  /** http-host.ts's `sessionless` hook. */
  readonly sessionless: {
    accepts(request: IncomingMessage): boolean;
    handle(request: IncomingMessage, response: ServerResponse, endpoint: string): Promise<void>;
  };
  close(): Promise<void>;
}

/**
 * Asks the upstream (`server/discover`) whether it speaks 2026-07-28; if it does, the hook that
 * serves stateless requests through the wire gate. Undefined otherwise: such requests are then
 * refused as today (a 2025-era session server's 400 "Server not initialized").
 */
export async function startStatelessServing(
  wire: WireGate,
  upstream: StatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
): Promise<StatelessServing | undefined> {
  if (!(await upstreamSpeaksStateless(upstream.url, upstream.headers({}), probeTimeoutMs))) return undefined;
  const connections = new StatelessConnections({ wire, onError, connect: (headers, envelope) => connectStatelessUpstream(upstream.url, headers, envelope) });
  const handle = createStatelessHandler({ connections, upstreamHeaders: upstream.headers, onError });
  return { sessionless: { accepts: isStatelessRequest, handle }, close: () => connections.close() };
}

// `mcp-gate proxy` serving 2026-07-28 stateless requests, when its upstream speaks 2026-07-28.
// Loaded by proxy-runtime.ts only for a Streamable HTTP upstream, and only if the v2 client
// package (`@modelcontextprotocol/client`, an optional peer) is installed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WireGate } from '../wire/wire-gate.js';
import { StatelessConnections } from './stateless-connections.js';
import { StatelessListeners } from './stateless-listen.js';
import { createStatelessHandler, isStatelessRequest } from './stateless-requests.js';
import { inspectStatelessTarget, type InspectedStatelessUpstream } from './stateless-inspection.js';
import { connectStatelessUpstream, discoverStatelessUpstream } from './stateless-upstream.js';

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
 *
 * `only`: the upstream speaks nothing else (it refused the startup check's 2025-era
 * `initialize`), so there are no sessions to open: every request is served this way, and a
 * 2025-era client's `initialize` gets the upstream's own refusal (HTTP 400, `-32022` with the
 * revisions it supports), relayed.
 */
export async function startStatelessServing(
  wire: WireGate,
  upstream: StatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
  only = false,
): Promise<StatelessServing | undefined> {
  if ((await discoverStatelessUpstream(upstream.url, upstream.headers({}), probeTimeoutMs)) === undefined) return undefined;
  const connections = new StatelessConnections({ wire, onError, connect: (headers, envelope) => connectStatelessUpstream(upstream.url, headers, envelope) });
  const listeners = new StatelessListeners({ connections, upstream: upstream.url, onError });
  const handle = createStatelessHandler({ connections, listeners, upstreamHeaders: upstream.headers, onError });
  const close = async () => {
    listeners.close();
    await connections.close();
  };
  return { sessionless: { accepts: only ? () => true : isStatelessRequest, handle }, close };
}

/** The startup check of an upstream that speaks only 2026-07-28 (stateless-inspection.ts), at its URL with its headers. */
export function inspectStatelessUpstream(wire: WireGate, upstream: StatelessUpstream, timeoutMs: number): Promise<InspectedStatelessUpstream | undefined> {
  return inspectStatelessTarget(wire, upstream.url, upstream.headers({}), timeoutMs);
}

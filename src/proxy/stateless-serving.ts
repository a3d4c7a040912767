// `mcp-gate proxy` serving 2026-07-28 stateless requests, when its upstream speaks 2026-07-28:
// a Streamable HTTP URL, or a spawned process over its stdio (stdio-stateless-upstream.ts). Behind
// the HTTP listener (startStatelessServing) or the proxy's own stdio (startStatelessConnections,
// for stdio-era-serving.ts). Loaded by proxy-runtime.ts only if the v2 client package
// (`@modelcontextprotocol/client`, an optional peer) is installed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WireGate } from '../wire/wire-gate.js';
import { StatelessConnections } from './stateless-connections.js';
import { StatelessListeners } from './stateless-listen.js';
import { createStatelessHandler, isStatelessRequest } from './stateless-requests.js';
import { inspectStatelessTarget, type InspectedStatelessUpstream } from './stateless-inspection.js';
import { connectStatelessUpstream, discoverStatelessUpstream, type StatelessTarget } from './stateless-upstream.js';
import type { SpawnedStatelessUpstream } from './stdio-stateless-upstream.js';

/** Where stateless requests go upstream: the Streamable HTTP URL, and the headers for a request with given downstream headers. */
export interface StatelessUpstream {
  readonly url: URL;
  readonly headers: (downstream: Readonly<Record<string, string | string[] | undefined>>) => Readonly<Record<string, string>>;
}

/** A stateless upstream of either kind: a Streamable HTTP URL with its headers, or a spawned process. */
export type AnyStatelessUpstream = StatelessUpstream | SpawnedStatelessUpstream;

export interface StatelessServing {
  /** http-host.ts's `sessionless` hook. */
  readonly sessionless: {
    accepts(request: IncomingMessage): boolean;
    handle(request: IncomingMessage, response: ServerResponse, endpoint: string): Promise<void>;
  };
  close(): Promise<void>;
}

/** What 2026-07-28 requests are served through, behind either listener. */
export interface StatelessConnectionsStarted {
  readonly connections: StatelessConnections;
  /** Change streams (`subscriptions/listen`), relayed filtered. */
  readonly listeners: StatelessListeners;
  /** The upstream headers of a request with these downstream headers (a spawned process has none). */
  readonly upstreamHeaders: StatelessUpstream['headers'];
  close(): Promise<void>;
}

function targetOf(upstream: AnyStatelessUpstream): { target: StatelessTarget; headers: StatelessUpstream['headers'] } {
  // A spawned process has no headers: --upstream-header and --forward-header are for a URL.
  return 'url' in upstream ? { target: upstream.url, headers: upstream.headers } : { target: upstream, headers: () => ({}) };
}

/** A spawned upstream's process ends with the serving it was started for, or at once when it does not speak 2026-07-28. */
async function closeSpawned(upstream: AnyStatelessUpstream): Promise<void> {
  if (!('url' in upstream)) await upstream.close();
}

/**
 * The connections and change streams 2026-07-28 requests are served through, when the upstream
 * speaks 2026-07-28 (its `server/discover` lists it); undefined otherwise, and a 2026-07-28
 * client is then served as a 2025-era server would serve it.
 */
export async function startStatelessConnections(
  wire: WireGate,
  upstream: AnyStatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
): Promise<StatelessConnectionsStarted | undefined> {
  const { target, headers } = targetOf(upstream);
  if ((await discoverStatelessUpstream(target, headers({}), probeTimeoutMs)) === undefined) {
    await closeSpawned(upstream);
    return undefined;
  }
  const connections = new StatelessConnections({ wire, onError, connect: (requestHeaders, envelope) => connectStatelessUpstream(target, requestHeaders, envelope) });
  // Change streams, opened at the upstream URL or on the spawned process's stdio.
  const listeners = new StatelessListeners({ connections, upstream: 'url' in upstream ? upstream.url : upstream, onError });
  const close = async () => {
    listeners.close();
    await connections.close();
    await closeSpawned(upstream);
  };
  return { connections, listeners, upstreamHeaders: headers, close };
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
  upstream: AnyStatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
  only = false,
): Promise<StatelessServing | undefined> {
  const started = await startStatelessConnections(wire, upstream, onError, probeTimeoutMs);
  if (started === undefined) return undefined;
  const handle = createStatelessHandler({ connections: started.connections, listeners: started.listeners, upstreamHeaders: started.upstreamHeaders, onError });
  return { sessionless: { accepts: only ? () => true : isStatelessRequest, handle }, close: () => started.close() };
}

/**
 * The startup check of an upstream that speaks only 2026-07-28 (stateless-inspection.ts), at its
 * URL with its headers or over a spawned process's stdio (which then serves the stateless
 * requests, or ends when the upstream does not speak 2026-07-28 either).
 */
export async function inspectStatelessUpstream(wire: WireGate, upstream: AnyStatelessUpstream, timeoutMs: number): Promise<InspectedStatelessUpstream | undefined> {
  const { target, headers } = targetOf(upstream);
  const inspected = await inspectStatelessTarget(wire, target, headers({}), timeoutMs);
  if (inspected === undefined) await closeSpawned(upstream);
  return inspected;
}

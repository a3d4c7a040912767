// 2026-07-28 stateless requests where stdio is on one side: a spawned upstream that speaks
// 2026-07-28 (stdio-stateless-upstream.ts) behind the HTTP listener, and the connections that a
// downstream `--stdio` client of 2026-07-28 is served through (stdio-era-serving.ts). Loaded by
// proxy-runtime.ts only if the v2 client package (`@modelcontextprotocol/client`) is installed.
import type { WireGate } from '../wire/wire-gate.js';
import { StatelessConnections } from './stateless-connections.js';
import { StatelessListeners } from './stateless-listen.js';
import { createStatelessHandler, isStatelessRequest } from './stateless-requests.js';
import type { StatelessServing, StatelessUpstream } from './stateless-serving.js';
import { inspectStatelessTarget, type InspectedStatelessUpstream } from './stateless-inspection.js';
import { connectStatelessUpstream, discoverStatelessUpstream, type StatelessTarget } from './stateless-upstream.js';
import type { SpawnedStatelessUpstream } from './stdio-stateless-upstream.js';

/** A stateless upstream of either kind: a Streamable HTTP URL with its headers, or a spawned process. */
export type AnyStatelessUpstream = StatelessUpstream | SpawnedStatelessUpstream;

/** A spawned upstream's process ends with the serving it was started for, or at once when it does not speak 2026-07-28. */
async function closeSpawned(upstream: AnyStatelessUpstream): Promise<void> {
  if (!('url' in upstream)) await upstream.close();
}

function targetOf(upstream: AnyStatelessUpstream): { target: StatelessTarget; headers: StatelessUpstream['headers'] } {
  // A spawned process has no headers: --upstream-header and --forward-header are for a URL.
  return 'url' in upstream ? { target: upstream.url, headers: upstream.headers } : { target: upstream, headers: () => ({}) };
}

/** What a downstream `--stdio` client of 2026-07-28 is served through (stdio-era-serving.ts). */
export interface StdioStatelessConnections {
  readonly connections: StatelessConnections;
  /** Change streams (`subscriptions/listen`), relayed filtered. */
  readonly listeners: StatelessListeners;
  readonly upstreamHeaders: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The connections 2026-07-28 requests are served through when the upstream speaks 2026-07-28
 * (its `server/discover` lists it), with the upstream headers of a request that has none to
 * forward (a request over the proxy's stdio); undefined otherwise, and a 2026-07-28 client is
 * then served as it would be by a 2025-era server.
 */
export async function startStdioStatelessConnections(
  wire: WireGate,
  upstream: AnyStatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
): Promise<StdioStatelessConnections | undefined> {
  const { target, headers } = targetOf(upstream);
  // Without an HTTP request to forward headers from, the upstream gets the --upstream-header ones.
  const upstreamHeaders = headers({});
  if ((await discoverStatelessUpstream(target, upstreamHeaders, probeTimeoutMs)) === undefined) {
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
  return { connections, listeners, upstreamHeaders, close };
}

/** stateless-serving.ts's startStatelessServing for a spawned upstream: the HTTP listener's hook, its requests sent over the process's stdio. */
export async function startSpawnedStatelessServing(
  wire: WireGate,
  upstream: SpawnedStatelessUpstream,
  onError: (error: unknown) => void,
  probeTimeoutMs: number,
  only = false,
): Promise<StatelessServing | undefined> {
  const started = await startStdioStatelessConnections(wire, upstream, onError, probeTimeoutMs);
  if (started === undefined) return undefined;
  const handle = createStatelessHandler({ connections: started.connections, listeners: started.listeners, upstreamHeaders: () => ({}), onError });
  return { sessionless: { accepts: only ? () => true : isStatelessRequest, handle }, close: () => started.close() };
}

/** The startup check of a spawned upstream that speaks only 2026-07-28 (stateless-inspection.ts), over its stdio: the process then serves the stateless requests. */
export async function inspectSpawnedStatelessUpstream(wire: WireGate, upstream: SpawnedStatelessUpstream, timeoutMs: number): Promise<InspectedStatelessUpstream | undefined> {
  // A spawned process has no headers: --upstream-header is for a URL.
  const inspected = await inspectStatelessTarget(wire, upstream, {}, timeoutMs);
  if (inspected === undefined) await upstream.close();
  return inspected;
}

// `mcp-gate proxy` serving 2026-07-28 stateless requests, when its upstream speaks 2026-07-28.
// Loaded by proxy-runtime.ts only for a Streamable HTTP upstream, and only if the v2 client
// package (`@modelcontextprotocol/client`, an optional peer) is installed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WireGate } from '../wire/wire-gate.js';
import { StatelessConnections } from './stateless-connections.js';
import { StatelessListeners } from './stateless-listen.js';
import { createStatelessHandler, isStatelessRequest } from './stateless-requests.js';
import type { Catalog } from '../adapter/catalog.js';
import { connectStatelessUpstream, discoverStatelessUpstream, serverNameOf, startupEnvelope } from './stateless-upstream.js';

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
  const listeners = new StatelessListeners({ connections, url: upstream.url, onError });
  const handle = createStatelessHandler({ connections, listeners, upstreamHeaders: upstream.headers, onError });
  const close = async () => {
    listeners.close();
    await connections.close();
  };
  return { sessionless: { accepts: only ? () => true : isStatelessRequest, handle }, close };
}

/**
 * The startup check of an upstream that speaks only 2026-07-28: its server name and its lists
 * (as the proxy's own startup envelope sees them), read with stateless requests. Undefined when
 * it does not speak 2026-07-28 either.
 */
export async function inspectStatelessUpstream(
  wire: WireGate,
  upstream: StatelessUpstream,
  timeoutMs: number,
): Promise<{ readonly catalog: Catalog; readonly serverName: string | undefined } | undefined> {
  const discover = await discoverStatelessUpstream(upstream.url, upstream.headers({}), timeoutMs);
  if (discover === undefined) return undefined;
  const client = await connectStatelessUpstream(upstream.url, upstream.headers({}), startupEnvelope);
  try {
    const connection = await wire.attach(client, { notify: async () => undefined, isOpen: () => false });
    return { catalog: connection.catalog(), serverName: serverNameOf(discover) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

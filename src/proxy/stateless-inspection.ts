// The startup check of an upstream that speaks only 2026-07-28, whatever carries its requests (a
// Streamable HTTP URL or a spawned process's stdio, stateless-serving.ts): its server name and
// its lists, as the proxy's own startup envelope sees them, read with stateless requests.
import type { Catalog } from '../adapter/catalog.js';
import type { WireGate } from '../wire/wire-gate.js';
import { connectStatelessUpstream, discoverStatelessUpstream, serverNameOf, startupEnvelope, type StatelessTarget } from './stateless-upstream.js';

export interface InspectedStatelessUpstream {
  readonly catalog: Catalog;
  readonly serverName: string | undefined;
}

/** Undefined when the upstream does not speak 2026-07-28 either (its `server/discover` does not list it). */
export async function inspectStatelessTarget(
  wire: WireGate,
  target: StatelessTarget,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<InspectedStatelessUpstream | undefined> {
  const discover = await discoverStatelessUpstream(target, headers, timeoutMs);
  if (discover === undefined) return undefined;
  const client = await connectStatelessUpstream(target, headers, startupEnvelope);
  try {
    const connection = await wire.attach(client, { notify: async () => undefined, isOpen: () => false });
    return { catalog: connection.catalog(), serverName: serverNameOf(discover) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

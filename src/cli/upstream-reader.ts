// The part of reading an upstream that needs @modelcontextprotocol/sdk (loaded through importPeer).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { defaultVersionSeparator } from '../adapter/versioning.js';
import type { PrimitiveKind, PrimitiveMetadata } from '../core/primitive-metadata.js';
import type { UpstreamSpec } from '../proxy/upstream-command.js';
import { openUpstreamTransport } from '../proxy/upstream-transport.js';
import { withTimeout } from '../serve/lifetime.js';
import type { Overlay } from '../wire/overlay.js';
import { fetchSnapshot } from '../wire/snapshot.js';

export interface UpstreamRead {
  readonly server: { readonly name?: string; readonly version?: string } | undefined;
  /** Every listed primitive with valid metadata, as the wire binding's catalog holds it. */
  readonly primitives: readonly PrimitiveMetadata[];
  /** Primitives whose `_meta["mcp-gate"]` (or overlay annotation) is invalid, one line each. */
  readonly invalid: readonly string[];
  readonly unmatchedOverlayKeys: readonly string[];
}

const kinds: readonly PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

export interface UpstreamReadOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Headers of every request to an HTTP upstream (`--upstream-header`). */
  readonly headers?: Readonly<Record<string, string>>;
}

export async function readUpstream(spec: UpstreamSpec, overlay: Overlay, options: UpstreamReadOptions): Promise<UpstreamRead> {
  const client = new Client({ name: 'mcp-gate-cli', version: '0.1.0' });
  try {
    return await withTimeout(read(client, spec, overlay, options), options.timeoutMs, `no answer within ${options.timeoutMs / 1000} s`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function read(client: Client, spec: UpstreamSpec, overlay: Overlay, options: UpstreamReadOptions): Promise<UpstreamRead> {
  // The upstream's own stderr is not ours to print: a failure to start shows as the connect error.
  await client.connect(openUpstreamTransport(spec, { cwd: options.cwd, headers: options.headers }), { timeout: options.timeoutMs });
  const snapshot = await fetchSnapshot(client, 0, overlay, defaultVersionSeparator, { timeoutMs: options.timeoutMs });
  const { catalog } = snapshot;
  const primitives = kinds.flatMap((kind) =>
    catalog
      .entries(kind)
      .filter((entry) => entry.metadataError === undefined)
      .map((entry) => entry.metadata),
  );
  const invalid = catalog.errors.map((error) => error.message);
  const info = client.getServerVersion();
  return {
    server: info && { name: info.name, version: info.version },
    primitives,
    invalid,
    unmatchedOverlayKeys: overlay.unmatchedKeys(kinds.flatMap((kind) => catalog.entries(kind).map((entry) => ({ kind, key: entry.key })))),
  };
}

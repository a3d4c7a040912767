/**
 * The per-request `_meta` envelope of protocol 2026-07-28. With no `initialize` and no session,
 * every request states who the client is and what it can do; a gate must read that request's
 * envelope and nothing kept from an earlier one. The keys are spelled out here (not imported
 * from an SDK) so both adapters and the testing helpers share one reading of them.
 */
export const protocolVersionMetaKey = 'io.modelcontextprotocol/protocolVersion';
export const clientInfoMetaKey = 'io.modelcontextprotocol/clientInfo';
export const clientCapabilitiesMetaKey = 'io.modelcontextprotocol/clientCapabilities';
/** Where a 2026-07-28 `server/discover` result names the server (its `_meta`). */
export const serverInfoMetaKey = 'io.modelcontextprotocol/serverInfo';

/** What a policy may learn from one envelope. Absent fields were absent (or malformed) on the wire. */
export interface RequestEnvelope {
  readonly protocolVersion?: string | undefined;
  readonly clientName?: string | undefined;
  readonly clientVersion?: string | undefined;
  readonly capabilities?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Reads the envelope out of a `_meta` object; undefined when none of its keys is present (a
 * 2025-era request). Values of the wrong type are dropped rather than trusted: the SDK rejects
 * a malformed envelope before dispatch, so this only matters for hand-built inputs.
 */
export function readEnvelope(meta: unknown): RequestEnvelope | undefined {
  if (!isRecord(meta)) return undefined;
  const hasAny = protocolVersionMetaKey in meta || clientInfoMetaKey in meta || clientCapabilitiesMetaKey in meta;
  if (!hasAny) return undefined;
  const version = meta[protocolVersionMetaKey];
  const info = meta[clientInfoMetaKey];
  const capabilities = meta[clientCapabilitiesMetaKey];
  return {
    protocolVersion: typeof version === 'string' ? version : undefined,
    clientName: isRecord(info) && typeof info['name'] === 'string' ? info['name'] : undefined,
    clientVersion: isRecord(info) && typeof info['version'] === 'string' ? info['version'] : undefined,
    capabilities: isRecord(capabilities) ? capabilities : undefined,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Apart from the SDK: the CLI explains an upstream of another protocol era before it loads anything more.

/**
 * What to tell the operator when the upstream refused the proxy's `initialize` for its protocol
 * version (`-32022`, as a 2026-07-28-only server answers a 2025-era client): the revisions it
 * speaks, from the error's `data.supported`. Undefined for any other failure. The error is an
 * McpError (stdio) or the Streamable HTTP client's error, whose message holds the JSON-RPC answer.
 */
export function eraMismatchMessage(error: unknown): string | undefined {
  const supported = supportedVersionsOf(error);
  if (supported === undefined) return undefined;
  const revisions = supported.length === 1 ? `revision ${supported[0]}` : `revisions ${supported.join(', ')}`;
  return `it speaks only protocol ${revisions}, and mcp-gate proxy opens 2025-era sessions upstream (2025-11-25 and earlier); see docs/proxy.md#protocol-eras`;
}

const unsupportedProtocolVersion = -32022;

function supportedVersionsOf(error: unknown): string[] | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (code === unsupportedProtocolVersion) return versionList(data);
  const start = error.message.indexOf('{"jsonrpc"');
  if (start === -1) return undefined;
  try {
    const answer = JSON.parse(error.message.slice(start)) as { error?: { code?: unknown; data?: unknown } };
    return answer.error?.code === unsupportedProtocolVersion ? versionList(answer.error.data) : undefined;
  } catch {
    return undefined;
  }
}

function versionList(data: unknown): string[] | undefined {
  const supported = (data as { supported?: unknown } | null | undefined)?.supported;
  return Array.isArray(supported) && supported.length > 0 && supported.every((version) => typeof version === 'string') ? supported : undefined;
}

// The MCP SDKs are optional peers: `mcp-gate validate` runs in a project that has neither. What
// needs the v1 SDK (serve's module, a --server module) is imported through `importPeer` when a
// command needs it, so a missing package is one line naming what to install, not Node's stack.

/**
 * The optional peers the CLI loads and how to install each: the ranges of package.json's
 * peerDependencies (a test keeps them equal).
 */
export const optionalPeers = {
  '@modelcontextprotocol/sdk': { range: '^1.32.0', what: 'the v1 MCP TypeScript SDK' },
  // serve --otel (src/cli/otel-runtime.ts): the API, the SDK, and the exporters of the protocol in use.
  '@opentelemetry/api': { range: '^1.9.0', what: 'the OpenTelemetry API' },
  '@opentelemetry/sdk-trace-base': { range: '^2.0.0', what: 'the OpenTelemetry tracing SDK' },
  '@opentelemetry/sdk-metrics': { range: '^2.0.0', what: 'the OpenTelemetry metrics SDK' },
  '@opentelemetry/resources': { range: '^2.0.0', what: 'OpenTelemetry resources' },
  '@opentelemetry/exporter-trace-otlp-proto': { range: '>=0.200.0 <0.300.0', what: 'the OTLP/HTTP protobuf trace exporter' },
  '@opentelemetry/exporter-metrics-otlp-proto': { range: '>=0.200.0 <0.300.0', what: 'the OTLP/HTTP protobuf metric exporter' },
  '@opentelemetry/exporter-trace-otlp-http': { range: '>=0.200.0 <0.300.0', what: 'the OTLP/HTTP JSON trace exporter' },
  '@opentelemetry/exporter-metrics-otlp-http': { range: '>=0.200.0 <0.300.0', what: 'the OTLP/HTTP JSON metric exporter' },
} as const satisfies Record<string, { range: string; what: string }>;

export type OptionalPeer = keyof typeof optionalPeers;

/** Exit code 3 (docs/cli.md): the command cannot run here, as a package it needs is not installed. */
export const missingPeerExitCode = 3;

/** An optional peer a command needs is not installed: one line on stderr, exit code 3. */
export class MissingPeerError extends Error {
  override name = 'MissingPeerError';
  constructor(
    readonly packageName: OptionalPeer,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs `load` (a dynamic import of code that imports `peer`); if it fails because `peer` cannot be
 * found, throws a MissingPeerError whose message starts with `needer` (`mcp-gate serve`, the
 * server module's file name). Any other failure (a file missing from mcp-gate itself, a
 * dependency of the peer) is not the user's to fix by installing the peer, so it passes through.
 */
export async function importPeer<T>(peer: OptionalPeer, needer: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (missingPackage(error) !== peer) throw error;
    const { range, what } = optionalPeers[peer];
    throw new MissingPeerError(peer, `${needer}: needs ${peer} (${what}), which is not installed; install it with: npm install "${peer}@${range}"`);
  }
}

/**
 * The package an ERR_MODULE_NOT_FOUND names, as Node words it: `Cannot find package
 * '@scope/name' imported from …` (a subpath import names the package, or the full specifier).
 * Undefined for a missing file, `Cannot find module '/…/x.js'`.
 */
export function missingPackage(error: unknown): string | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const specifier = /Cannot find package '([^']+)'/.exec((error as Error).message ?? '')?.[1];
  if (specifier === undefined) return undefined;
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

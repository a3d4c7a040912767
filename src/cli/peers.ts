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
  // serve/proxy --policy-flag (src/cli/policy-flag-source.ts): the OpenFeature SDK and flagd's
  // provider, which needs gRPC even for a flag file (its bundle requires @grpc/grpc-js at load).
  // grpc-js's range is the provider's own peer range (~1.8 … ~1.14), so the hint never installs a
  // version the provider refuses.
  '@openfeature/server-sdk': { range: '^1.17.0', what: 'the OpenFeature server SDK' },
  '@openfeature/flagd-provider': { range: '^0.16.0', what: "flagd's OpenFeature provider" },
  '@grpc/grpc-js': { range: '>=1.8.0 <1.15.0', what: 'gRPC for Node, which the flagd provider loads' },
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

type Loaded<T extends readonly (readonly [OptionalPeer, () => Promise<unknown>])[]> = { -readonly [K in keyof T]: Awaited<ReturnType<T[K][1]>> };

/**
 * importPeer for several peers: runs every `[peer, load]` at once, so a user missing several
 * learns of all of them in one line (exit code 3). A package missing from inside a peer that is
 * not one of ours passes through, as with importPeer.
 */
export async function importPeers<T extends readonly (readonly [OptionalPeer, () => Promise<unknown>])[]>(needer: string, loaders: T): Promise<Loaded<T>> {
  const settled = await Promise.allSettled(loaders.map(([, load]) => load()));
  const missing = new Set<OptionalPeer>();
  for (const result of settled) {
    if (result.status === 'fulfilled') continue;
    const name = missingPackage(result.reason);
    if (name === undefined || !Object.hasOwn(optionalPeers, name)) throw result.reason;
    missing.add(name as OptionalPeer);
  }
  if (missing.size > 0) {
    const names = [...missing];
    const listed = names.map((peer) => `${peer} (${optionalPeers[peer].what})`).join(', ');
    const install = names.map((peer) => `"${peer}@${optionalPeers[peer].range}"`).join(' ');
    const [verb, pronoun] = names.length === 1 ? ['is', 'it'] : ['are', 'them'];
    throw new MissingPeerError(names[0]!, `${needer}: needs ${listed}, which ${verb} not installed; install ${pronoun} with: npm install ${install}`);
  }
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as Loaded<T>;
}

/**
 * The package a failed import names, as Node words it: `Cannot find package '@scope/name'
 * imported from …` (ERR_MODULE_NOT_FOUND, from an ES module; a subpath import names the package,
 * or the full specifier) or `Cannot find module '@scope/name'` (MODULE_NOT_FOUND, from a
 * `require` inside a CommonJS package, as the flagd provider's bundle loads gRPC). Undefined for
 * a missing file, `Cannot find module '/…/x.js'`.
 */
export function missingPackage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error | null)?.message ?? '';
  let specifier: string | undefined;
  if (code === 'ERR_MODULE_NOT_FOUND') specifier = /Cannot find package '([^']+)'/.exec(message)?.[1];
  else if (code === 'MODULE_NOT_FOUND') specifier = /^Cannot find module '([^'./\\][^':\\]*)'/.exec(message)?.[1];
  if (specifier === undefined || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

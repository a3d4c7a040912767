// What `mcp-gate proxy` runs through the v1 SDK: the CLI imports this module through
// `importPeer` when the command runs, so its help and argument checks load without the SDK.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Catalog } from '../adapter/catalog.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { BearerVerifier } from '../serve/bearer-auth.js';
import { startHttpHost, type HttpHost } from '../serve/http-host.js';
import { aborted, serveOverStdio, withTimeout, type Serving } from '../serve/lifetime.js';
import { createWireGate, type WireGate, type WireGateOptions } from '../wire/wire-gate.js';
import type { EraBridge } from './bridge-upstream.js';
import { createProxySession, type ProxySessionOptions } from './proxy-session.js';
import type { StatelessServing, StatelessUpstream } from './stateless-serving.js';
import { SpawnedStatelessUpstream } from './stdio-stateless-upstream.js';
import { eraMismatchMessage } from './upstream-era.js';
import { UpstreamSupervisor } from './supervisor.js';

export { createWireGate, SpawnedStatelessUpstream };
export type { Serving, WireGate, WireGateOptions };

export interface UpstreamSummary {
  readonly counts: Readonly<Record<PrimitiveKind, number>>;
  /** Overlay keys whose glob matched none of the upstream's primitives. */
  readonly unmatchedOverlayKeys: readonly string[];
  readonly serverName: string | undefined;
  /** The upstream speaks only 2026-07-28: 2025-era sessions are bridged to it, and stateless requests relayed (ProxyHttpSettings.statelessOnly). */
  readonly statelessOnly?: boolean;
}

/**
 * Connects to the upstream once, at startup, so that a command that does not start or a URL
 * that does not answer fails before any client does, and reads its lists for the summary and
 * the overlay's warnings.
 *
 * `statelessUpstream` (HTTP only): where an upstream that refuses the 2025-era `initialize` for
 * its protocol version is asked again with 2026-07-28 stateless requests; if it speaks that, the
 * summary says `statelessOnly`, and the proxy bridges 2025-era sessions to it (docs/proxy.md#protocol-eras).
 */
export async function inspectUpstream(
  wire: WireGate,
  transport: Transport,
  timeoutMs: number,
  statelessUpstream?: StatelessUpstream | SpawnedStatelessUpstream,
): Promise<UpstreamSummary> {
  const client = new Client({ name: 'mcp-gate-proxy-startup-check', version: '0.1.0' });
  try {
    try {
      await withTimeout(client.connect(transport, { timeout: timeoutMs }), timeoutMs, 'the upstream did not answer initialize');
    } catch (error) {
      // Hook: an upstream of protocol 2026-07-28 only.
      if (statelessUpstream === undefined || eraMismatchMessage(error) === undefined) throw error;
      const inspected = await (await loadOptional(() => import('./stateless-serving.js')))?.inspectStatelessUpstream(wire, statelessUpstream, timeoutMs);
      if (inspected === undefined) throw error;
      return { ...summaryOf(wire, inspected.catalog, inspected.serverName), statelessOnly: true };
    }
    const connection = await withTimeout(wire.attach(client, { notify: async () => undefined, isOpen: () => false }), timeoutMs, 'the upstream did not answer its lists');
    return summaryOf(wire, connection.catalog(), client.getServerVersion()?.name);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function summaryOf(wire: WireGate, catalog: Catalog, serverName: string | undefined): UpstreamSummary {
  const kinds: PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];
  const primitives = kinds.flatMap((kind) => catalog.entries(kind).map((entry) => ({ kind, key: entry.key })));
  return {
    counts: Object.fromEntries(kinds.map((kind) => [kind, catalog.entries(kind).length])) as Record<PrimitiveKind, number>,
    unmatchedOverlayKeys: wire.overlay.unmatchedKeys(primitives),
    serverName,
  };
}

export interface ProxyHttpSettings {
  readonly port: number;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  /** Verifies each request's bearer token (--jwks); without it `auth` is empty. */
  readonly bearer?: BearerVerifier | undefined;
  /** --upstream-ping: how often a session with requests waiting pings its upstream session (off when undefined). */
  readonly upstreamPingMs?: number | undefined;
  /** How long a ping of the upstream may go unanswered before its session is taken as gone (default 5 s; tests shorten it). */
  readonly probeTimeoutMs?: number | undefined;
  /** A Streamable HTTP upstream, or a spawned one: 2026-07-28 stateless requests are served when it speaks 2026-07-28 (stateless-serving.ts). */
  readonly statelessUpstream?: StatelessUpstream | SpawnedStatelessUpstream | undefined;
  /**
   * The upstream speaks only 2026-07-28 (UpstreamSummary.statelessOnly): each 2025-era session's
   * upstream side is spoken as stateless requests (bridge-upstream.ts), over HTTP or the spawned
   * process's stdio.
   */
  readonly statelessOnly?: boolean | undefined;
  /** How long a bridged session's lists are used before they are fetched again (default 60 s; tests shorten it). */
  readonly bridgedListTtlMs?: number | undefined;
}

export interface ProxyHttpServing extends Serving {
  readonly host: HttpHost;
  /** Whether 2026-07-28 stateless requests are served too (the upstream speaks 2026-07-28). */
  readonly servesStateless: boolean;
}

/** Opens a downstream session's upstream transport, given the headers of the session's initialize (none over stdio). */
export type OpenUpstream = ProxySessionOptions['openUpstream'];

export async function serveProxyHttp(
  wire: WireGate,
  openUpstream: OpenUpstream,
  settings: ProxyHttpSettings,
  signal: AbortSignal,
  onError: (error: unknown) => void,
): Promise<ProxyHttpServing> {
  // One restart back-off for all sessions: a crashing upstream command is not spawned once per client in a tight loop.
  const supervisor = new UpstreamSupervisor();
  const bridge = await eraBridgeFor(settings, onError);
  // Hook: 2026-07-28 stateless requests, beside the 2025-era sessions on the same listener (every request, when an
  // upstream that speaks only 2026-07-28 could not be bridged).
  const stateless = await statelessServingFor(wire, settings.statelessUpstream, onError, settings.statelessOnly === true && bridge === undefined);
  const host = await startHttpHost({
    createServer: () =>
      createProxySession({ wire, openUpstream, onError, supervisor, upstreamPingMs: settings.upstreamPingMs, probeTimeoutMs: settings.probeTimeoutMs, bridge }),
    // The wire gate attaches to each session's upstream when its initialize arrives.
    gate: { install() {} },
    port: settings.port,
    maxSessions: settings.maxSessions,
    sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs,
    ...(settings.bearer === undefined ? {} : { bearer: settings.bearer }),
    ...(stateless === undefined ? {} : { sessionless: stateless.sessionless }),
    onError,
  });
  const close = async () => {
    await host.close();
    await stateless?.close();
  };
  return { host, done: aborted(signal), close, servesStateless: stateless !== undefined };
}

/** How long the startup asks the upstream whether it speaks 2026-07-28. */
const statelessProbeTimeoutMs = 10_000;

/**
 * The stateless serving for this upstream (a URL, or a spawned command over its stdio), or
 * undefined: for a legacy SSE upstream, one that does not speak 2026-07-28, or without the
 * optional v2 client package.
 */
async function statelessServingFor(
  wire: WireGate,
  upstream: StatelessUpstream | SpawnedStatelessUpstream | undefined,
  onError: (error: unknown) => void,
  only: boolean,
): Promise<StatelessServing | undefined> {
  if (upstream === undefined) return undefined;
  return (await loadOptional(() => import('./stateless-serving.js')))?.startStatelessServing(wire, upstream, onError, statelessProbeTimeoutMs, only);
}

/** The era bridge for an upstream that speaks only 2026-07-28 (docs/proxy.md#protocol-eras), else undefined. */
async function eraBridgeFor(
  settings: {
    readonly statelessUpstream?: StatelessUpstream | SpawnedStatelessUpstream | undefined;
    readonly statelessOnly?: boolean | undefined;
    readonly bridgedListTtlMs?: number | undefined;
  },
  onError: (error: unknown) => void,
): Promise<EraBridge | undefined> {
  if (settings.statelessUpstream === undefined || settings.statelessOnly !== true) return undefined;
  return (await loadOptional(() => import('./bridge-upstream.js')))?.createEraBridge(settings.statelessUpstream, onError, settings.bridgedListTtlMs);
}

/** A module that runs on the optional v2 client package (`@modelcontextprotocol/client`), or undefined without it. */
async function loadOptional<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    // Only the package missing turns stateless serving off; anything else is a fault to report.
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return undefined;
  }
}

export async function serveProxyStdio(
  wire: WireGate,
  openUpstream: OpenUpstream,
  stdio: { readonly input: Readable; readonly output: Writable },
  signal: AbortSignal,
  onError: (error: unknown) => void,
  settings: {
    readonly upstreamPingMs?: number | undefined;
    /** With statelessOnly: a 2025-era session is bridged to the upstream (a URL, or a spawned command). */
    readonly statelessUpstream?: StatelessUpstream | SpawnedStatelessUpstream | undefined;
    readonly statelessOnly?: boolean | undefined;
  } = {},
): Promise<Serving & { readonly servesStateless: boolean }> {
  const bridge = await eraBridgeFor(settings, onError);
  const legacySession = () => createProxySession({ wire, openUpstream, onError, upstreamPingMs: settings.upstreamPingMs, bridge });
  // Hook: a 2026-07-28 client on stdio, when the upstream speaks 2026-07-28; the opening exchange picks the era (stdio-era-serving.ts).
  const stateless =
    settings.statelessUpstream === undefined
      ? undefined
      : await (await loadOptional(() => import('./stateless-serving.js')))?.startStatelessConnections(wire, settings.statelessUpstream, onError, statelessProbeTimeoutMs);
  if (stateless === undefined) return { ...(await serveOverStdio(legacySession(), stdio, signal)), servesStateless: false };
  const { serveProxyStdioEras } = await import('./stdio-era-serving.js');
  const eras = await serveProxyStdioEras({
    stdio,
    signal,
    legacySession,
    stateless: stateless.connections,
    listeners: stateless.listeners,
    // Over stdio there are no downstream headers to forward: the upstream gets the --upstream-header ones.
    upstreamHeaders: stateless.upstreamHeaders({}),
    // A 2025-era client of a 2026-07-28-only upstream opens a bridged session; without a bridge it gets the upstream's refusal.
    only: settings.statelessOnly === true && bridge === undefined,
    onError,
  });
  return { done: eras.done, close: async () => (await eras.close(), await stateless.close()), servesStateless: true };
}

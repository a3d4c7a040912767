// The era bridge: a 2025-era downstream session in front of an upstream that speaks only
// 2026-07-28. The session keeps its own upstream Client, as every session does, but that Client
// speaks 2026-07-28 stateless requests (stateless-upstream.ts's transport), each carrying an
// envelope built from the session's `initialize`, over HTTP (a --upstream-url) or over the stdio of
// the spawned process (--upstream-cmd) all 2026-07-28 requests share (stdio-stateless-upstream.ts).
// Loaded by proxy-runtime.ts only for such an upstream, and only with the optional v2 client
// package installed. docs/proxy.md#protocol-eras.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, LoggingLevelSchema, ResultSchema, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey, serverInfoMetaKey } from '../adapter/envelope.js';
import { RelayedError } from '../wire/relayed-error.js';
import type { WireConnection } from '../wire/wire-connection.js';
import { mcpParamHeaders } from './bridge-param-headers.js';
import { BridgedSubscriptions, SubscribingTransport } from './bridge-subscriptions.js';
import type { StatelessUpstream } from './stateless-serving.js';
import type { SpawnedStatelessUpstream } from './stdio-stateless-upstream.js';
import { createStatelessUpstreamTransport, statelessProtocolVersion, type EnvelopeMeta } from './stateless-upstream.js';
import { proxyServerInfo, type InitializedDownstream, type UpstreamIdentity } from './supervised-upstream.js';

/** How the upstream side of a bridged session differs from a 2025-era upstream session (supervised-upstream.ts, proxy-session.ts). */
export interface EraBridge {
  /**
   * A transport whose requests go upstream as stateless requests with this session's envelope;
   * connecting it sends nothing. `connection`: the upstream session's gate, once attached (the
   * upstream's list item of a tool, for the header parameters of a call to it; whether the
   * session may see a resource, for its subscriptions).
   */
  transport(initialized: InitializedDownstream, connection: () => WireConnection | undefined): Transport;
  /** What the session's `initialize` is answered with: the upstream's `server/discover`, asked with the session's envelope. */
  identify(client: Client, timeoutMs: number): Promise<UpstreamIdentity>;
  /** Whether the upstream still answers, after a transport error (a 2026-07-28 server has no `ping`: it is asked `server/discover`). */
  check(client: Client, timeoutMs: number): Promise<void>;
  /** The answer to a request the bridge cannot carry over (undefined for the others). */
  refusal(method: string): RelayedError | undefined;
  /**
   * `logging/setLevel`, answered by the bridge: 2026-07-28 has no such request, but carries the
   * level in each request's envelope (`io.modelcontextprotocol/logLevel`), so the session's
   * later requests carry it (and the upstream sends their log messages, none without it).
   */
  setLevel(initialized: InitializedDownstream, params: Record<string, unknown> | undefined): Record<string, never>;
  /** The session ended: its upstream subscriptions/listen, if it holds one, is closed (bridge-subscriptions.ts). */
  endSession(initialized: InitializedDownstream): void;
  /**
   * Fetches the session's lists again once they are older than the bridge's TTL, telling the
   * session of lists whose visible part changed (WireConnection.refresh): a 2026-07-28 upstream
   * announces changes only on subscriptions/listen, which the bridge holds open only for resource subscriptions.
   */
  freshen(connection: WireConnection): Promise<void>;
  /** A forwarded result as a 2025-era session is answered: without 2026-07-28's result type and caching hints. */
  sessionResult(result: unknown): unknown;
}

/** How long a bridged session's lists are used before its next request fetches them again (as for stateless requests). */
export const defaultBridgedListTtlMs = 60_000;

export function createEraBridge(upstream: StatelessUpstream | SpawnedStatelessUpstream, onError: (error: unknown) => void, listTtlMs = defaultBridgedListTtlMs): EraBridge {
  // A spawned process has no URL to open a listen on, and the proxy relays no notification of its but progress.
  const [http, spawned] = 'url' in upstream ? [upstream, undefined] : [undefined, upstream];
  /** When each connection's lists were fetched (first seen just after its attach fetched them). */
  const listedAt = new WeakMap<WireConnection, number>();
  /** Each session's subscriptions, kept across its upstream sessions (every one is opened with the same InitializedDownstream). */
  const subscriptions = new WeakMap<InitializedDownstream, BridgedSubscriptions>();
  const subscriptionsOf = (initialized: InitializedDownstream, target: StatelessUpstream) => {
    let held = subscriptions.get(initialized);
    if (held === undefined) {
      const headers = target.headers(initialized.downstream.headers);
      held = new BridgedSubscriptions({ url: target.url, headers, envelope: () => sessionEnvelope(initialized), onError });
      subscriptions.set(initialized, held);
    }
    return held;
  };
  const discover = (client: Client, timeoutMs: number) => client.request({ method: 'server/discover' } as never, ResultSchema, { timeout: timeoutMs });
  return {
    transport(initialized, connection) {
      // Over stdio there are no headers (SEP-2243's header parameters are HTTP's).
      if (http === undefined) return createStatelessUpstreamTransport(spawned, {}, sessionEnvelope(initialized));
      const stateless = createStatelessUpstreamTransport(http.url, http.headers(initialized.downstream.headers), sessionEnvelope(initialized), (params) => {
        const name = params?.['name'];
        const tool = typeof name === 'string' ? connection()?.listedItem('tool', name) : undefined;
        return tool === undefined ? undefined : mcpParamHeaders(tool['inputSchema'], params?.['arguments']);
      });
      return new SubscribingTransport(stateless, subscriptionsOf(initialized, http), (uri) => connection()?.showsResource(uri) === true);
    },
    identify: async (client, timeoutMs) => identityOf(await discover(client, timeoutMs), spawned !== undefined),
    check: async (client, timeoutMs) => void (await discover(client, timeoutMs)),
    refusal(method) {
      if (spawned === undefined || !notRelayedFromSpawned.has(method)) return undefined;
      return new RelayedError(ErrorCode.MethodNotFound, `${method} is not available through mcp-gate proxy: ${spawnedReason}`);
    },
    endSession: (initialized) => subscriptions.get(initialized)?.close(),
    setLevel(initialized, params) {
      const level = LoggingLevelSchema.safeParse(params?.['level']);
      if (!level.success) throw new RelayedError(ErrorCode.InvalidParams, `Invalid log level: ${JSON.stringify(params?.['level'])}`);
      sessionEnvelope(initialized)[logLevelMetaKey] = level.data;
      return {};
    },
    sessionResult(result) {
      if (result === null || typeof result !== 'object' || (result as { resultType?: unknown }).resultType !== 'complete') return result;
      const { resultType: _resultType, ttlMs: _ttlMs, cacheScope: _cacheScope, ...rest } = result as Record<string, unknown>;
      return rest;
    },
    async freshen(connection) {
      const now = Date.now();
      const at = listedAt.get(connection);
      if (at === undefined) listedAt.set(connection, now);
      if (at === undefined || now - at < listTtlMs) return;
      listedAt.set(connection, now);
      await connection.refresh();
    },
  };
}

/** The envelope every upstream request of a bridged session carries: the client as it initialized, at protocol 2026-07-28. */
export function bridgedEnvelope(initialized: InitializedDownstream): EnvelopeMeta {
  return {
    [protocolVersionMetaKey]: statelessProtocolVersion,
    [clientInfoMetaKey]: initialized.clientInfo,
    [clientCapabilitiesMetaKey]: initialized.capabilities,
  };
}

/** The reserved `_meta` key of 2026-07-28's per-request log level (its logging utility; SEP-2577 deprecates logging, still in the spec). */
export const logLevelMetaKey = 'io.modelcontextprotocol/logLevel';

/**
 * The envelope of one bridged session, kept for the session (every upstream session of it is
 * opened with the same InitializedDownstream): its transports send what it holds at each request,
 * so a level set later goes with every request after it, on a restarted upstream session too.
 */
const sessionEnvelopes = new WeakMap<InitializedDownstream, Record<string, unknown>>();

function sessionEnvelope(initialized: InitializedDownstream): Record<string, unknown> {
  let envelope = sessionEnvelopes.get(initialized);
  if (envelope === undefined) sessionEnvelopes.set(initialized, (envelope = { ...bridgedEnvelope(initialized) }));
  return envelope;
}

/**
 * What a session bridged to a spawned upstream cannot have: the proxy relays none of the
 * process's notifications but progress (stdio-stateless-upstream.ts), so neither log messages nor
 * resource updates would reach it. Refused before anything is decided or sent upstream, the same
 * for every URI (a hidden resource answers as an unknown one); their capabilities are left out of
 * the `initialize` answer.
 */
const notRelayedFromSpawned: ReadonlySet<string> = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']);
const spawnedReason =
  'the spawned upstream speaks only protocol 2026-07-28, whose log messages and resource updates the proxy does not relay to 2025-era sessions (docs/proxy.md#protocol-eras)';

/** The discover result as an initialize answer: its capabilities (less what is refused, for a spawned upstream), server info and instructions. */
function identityOf(discover: Record<string, unknown>, spawned: boolean): UpstreamIdentity {
  const supported = discover['supportedVersions'];
  if (!Array.isArray(supported) || !supported.includes(statelessProtocolVersion)) {
    throw new Error(`the upstream's server/discover no longer lists protocol ${statelessProtocolVersion} (supportedVersions: ${JSON.stringify(supported)})`);
  }
  const capabilities = { ...((discover['capabilities'] ?? {}) as ServerCapabilities) };
  if (spawned) {
    delete capabilities.logging;
    if (capabilities.resources !== undefined) {
      const { subscribe: _subscribe, ...resources } = capabilities.resources;
      capabilities.resources = resources;
    }
  }
  const info = (discover['_meta'] as Record<string, unknown> | undefined)?.[serverInfoMetaKey] as { name?: unknown; version?: unknown } | undefined;
  const instructions = discover['instructions'];
  return {
    capabilities,
    serverInfo: typeof info?.name === 'string' && typeof info.version === 'string' ? (info as { name: string; version: string }) : proxyServerInfo,
    instructions: typeof instructions === 'string' ? instructions : undefined,
  };
}

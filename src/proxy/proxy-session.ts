import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type Implementation,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestContextInput } from '../core/context.js';
import { authOfToken } from '../adapter/token-auth.js';
import { RelayedError } from '../wire/relayed-error.js';
import type { WireGate } from '../wire/wire-gate.js';
import { defaultUpstreamTimeoutMs } from '../wire/upstream.js';
import type { EraBridge } from './bridge-upstream.js';
import { fulfilInputRequired } from './bridge-input-required.js';
import { relayLogOnRequestStream } from './bridge-logging.js';
import { ReplayedSessionState, notifyChangedLists } from './replayed-session-state.js';
import { SupervisedUpstream, upstreamWentAway, type DownstreamInitialize } from './supervised-upstream.js';
import { UpstreamSupervisor } from './supervisor.js';
import { relayUpstreamToDownstream } from './upstream-relay.js';

export type { DownstreamInitialize };

export interface ProxySessionOptions {
  readonly wire: WireGate;
  /** A fresh transport to the upstream (a spawned process, a new HTTP session); one per upstream session, given the headers of the downstream session's initialize. */
  readonly openUpstream: (downstream: DownstreamInitialize) => Transport;
  /** What failed outside any request: the upstream's transport, a relayed notification, an upstream that went away. */
  readonly onError: (error: unknown) => void;
  /** The restart back-off; share one between the sessions of a proxy (default: one for this session). */
  readonly supervisor?: UpstreamSupervisor;
  /** A forwarded request without progress fails after this long (default 10 minutes). */
  readonly upstreamTimeoutMs?: number;
  /** An upstream session that has not initialized and listed within this long is not available (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** After a transport error, an upstream that does not answer a ping within this long is taken as gone (default 5 s). */
  readonly probeTimeoutMs?: number;
  /**
   * While requests of the session wait on its upstream session, ping the upstream this often, so
   * that one that hangs without a transport error (a stopped process, a server that accepts
   * connections and never answers) is taken as gone after one unanswered ping (probeTimeoutMs)
   * rather than when each request times out. Off by default: an upstream that blocks its event
   * loop in a long tool call would miss a ping too, and be taken as gone.
   */
  readonly upstreamPingMs?: number | undefined;
  /** In front of an upstream that speaks only 2026-07-28: the session's upstream side is spoken as stateless requests (bridge-upstream.ts). */
  readonly bridge?: EraBridge | undefined;
}

// Everything a downstream client may ask for: the SDK checks handlers and notifications against
// the server's own capabilities, while the client is told the upstream's (see initialize below).
const everyCapability = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  logging: {},
  completions: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/**
 * One downstream session of `mcp-gate proxy`: a low-level SDK Server facing the client and an
 * SDK Client facing the upstream, opened when the client's `initialize` arrives so that the
 * upstream sees the client's own name, version and capabilities, and answered with the
 * upstream's capabilities, server info and instructions. Requests go through the wire binding;
 * the upstream's requests (sampling, elicitation, roots) and notifications (logging, progress,
 * resources/updated of visible resources) come back to this session only (upstream-relay.ts).
 *
 * The upstream session is supervised (supervised-upstream.ts): when it ends (the process exits,
 * the HTTP upstream stops answering), the requests waiting on it are answered with an error at
 * once, and the session's next request opens a new upstream session — initialized with the
 * client's own initialize, after the supervisor's back-off — replays the client's subscriptions
 * and log level, and tells the client about lists that changed for it (replayed-session-state.ts).
 * The downstream session stays open.
 */
export function createProxySession(options: ProxySessionOptions): Server {
  const server = new Server({ name: 'mcp-gate-proxy', version: '0.1.0' }, { capabilities: everyCapability });
  // logging/setLevel is the upstream's to answer, not the SDK server's.
  server.removeRequestHandler('logging/setLevel');
  const timeoutMs = options.upstreamTimeoutMs ?? defaultUpstreamTimeoutMs;
  let closed = false;
  /** Downstream requests now waiting for the upstream: where an upstream request during one belongs. */
  const forwarding = new Set<string | number>();
  /** The pings of --upstream-ping, running while `forwarding` is not empty. */
  let pinging: ReturnType<typeof setInterval> | undefined;
  const state = new ReplayedSessionState();
  /** The latest request's context: what lists are compared for after a restart. */
  let lastInput: RequestContextInput | undefined;
  const notifyListChanged = (list: string) => server.notification({ method: `notifications/${list}/list_changed` });

  const upstream = new SupervisedUpstream(
    {
      wire: options.wire,
      openUpstream: options.openUpstream,
      onError: options.onError,
      supervisor: options.supervisor ?? new UpstreamSupervisor(),
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      probeTimeoutMs: options.probeTimeoutMs ?? 5_000,
      bridge: options.bridge,
    },
    {
      isClosed: () => closed,
      relay: (link) => {
        relayUpstreamToDownstream(link, server, forwarding, timeoutMs);
        if (options.bridge !== undefined) relayLogOnRequestStream(link, server, forwarding);
      },
      notifyListChanged,
      holdsState: () => state.holdsState(),
      async restore(link, before) {
        await state.replay(link.connection, options.onError);
        if (before !== undefined && lastInput !== undefined) await notifyChangedLists(options.wire.policy, before.connection, link.connection, lastInput, notifyListChanged);
      },
    },
  );

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(pinging);
    if (upstream.initialized !== undefined) options.bridge?.endSession(upstream.initialized);
    upstream.close();
    void server.close().catch(options.onError);
  };
  server.onclose = close;

  server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    if (upstream.initialized !== undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server already initialized');
    const { protocolVersion, capabilities, clientInfo } = request.params;
    // A restarted upstream session is opened with the same headers (--forward-header) as the first.
    const { identity } = await upstream.initialize({ clientInfo, capabilities, downstream: { headers: extra.requestInfo?.headers ?? {} } });
    const { instructions } = identity;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : LATEST_PROTOCOL_VERSION,
      capabilities: identity.capabilities,
      serverInfo: identity.serverInfo,
      ...(instructions === undefined ? {} : { instructions }),
    };
  });

  server.fallbackRequestHandler = async (request, extra) => {
    const { initialized, link: current } = upstream;
    if (initialized === undefined || current === undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server not initialized');
    const refusal = options.bridge?.refusal(request.method);
    if (refusal !== undefined) throw refusal;
    if (options.bridge !== undefined && request.method === 'logging/setLevel') return options.bridge.setLevel(initialized, request.params);
    const link = !current.lost ? current : await upstream.current();
    const params = request.params as Record<string, unknown> | undefined;
    const progressToken = (params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
    // The answer waits for the progress sent before it, or it could overtake the last update and
    // close its stream first.
    const progressSent: Promise<void>[] = [];
    const onprogress =
      typeof progressToken === 'string' || typeof progressToken === 'number'
        ? (progress: { progress: number; total?: number; message?: string }) =>
            void progressSent.push(extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken } }).catch(options.onError))
        : undefined;
    const input = contextInput(request.method, extra, initialized.clientInfo, initialized.capabilities);
    lastInput = input;
    forwarding.add(request.id);
    if (options.upstreamPingMs !== undefined && options.upstreamPingMs > 0) {
      // One unanswered ping closes the upstream session: its waiting requests are answered at once.
      pinging ??= setInterval(() => {
        const now = upstream.link;
        if (now !== undefined && !now.lost && now.check === undefined) void upstream.isAlive(now);
      }, options.upstreamPingMs);
    }
    try {
      // A failed refresh keeps the lists as they were; the operator hears of it.
      if (options.bridge !== undefined) await options.bridge.freshen(link.connection).catch(options.onError);
      const forward = (sent: Record<string, unknown> | undefined) =>
        link.connection.handle({ method: request.method, params: sent, id: request.id }, input, { signal: extra.signal, onprogress, timeoutMs });
      let result = await forward(params);
      if (options.bridge !== undefined) {
        // 2026-07-28's input_required, asked of this session's client as 2025 server→client requests; each retry is gated again.
        result = await fulfilInputRequired(request.method, params, result, {
          clientCapabilities: initialized.capabilities,
          ask: (method, askParams, signal) => extra.sendRequest({ method, params: askParams } as never, ResultSchema, { signal, timeout: timeoutMs }),
          retry: forward,
          signal: extra.signal,
        });
        result = options.bridge.sessionResult(result);
      }
      await Promise.all(progressSent);
      state.remember(request.method, params, input);
      return result as never;
    } catch (error) {
      // The SDK rejects what was waiting on a closed connection; a transport error is checked with a ping.
      if (link.lost || (!extra.signal.aborted && !(error instanceof RelayedError) && !(await upstream.isAlive(link)))) throw upstreamWentAway();
      throw error;
    } finally {
      forwarding.delete(request.id);
      if (forwarding.size === 0) {
        clearInterval(pinging);
        pinging = undefined;
      }
    }
  };

  // The client's notifications (roots/list_changed and the like) go upstream; cancellation and
  // initialized are the SDK's own to handle on each side.
  server.fallbackNotificationHandler = async (notification) => {
    const link = upstream.link;
    if (link !== undefined && !link.lost) await link.client.notification(notification as never);
  };
  return server;
}

type RequestExtra = Parameters<NonNullable<Server['fallbackRequestHandler']>>[1];

/** The request as a policy reads it: headers and endpoint from HTTP (none on stdio), client details from this session's initialize. */
function contextInput(method: string, extra: RequestExtra, clientInfo: Implementation | undefined, capabilities: ClientCapabilities | undefined): RequestContextInput {
  const headers = extra.requestInfo?.headers ?? {};
  const protocolVersion = headers['mcp-protocol-version'];
  return {
    request: {
      method,
      headers,
      endpoint: (extra.requestInfo as { url?: URL } | undefined)?.url?.pathname ?? '',
      sessionId: extra.sessionId,
      protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : undefined,
    },
    client: { name: clientInfo?.name, version: clientInfo?.version, capabilities: capabilities as Record<string, unknown> | undefined },
    auth: authOfToken(extra.authInfo),
  };
}

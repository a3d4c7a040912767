import { Client } from '@modelcontextprotocol/sdk/client/index.js';
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
import { createPlannedRequestContext, wholeContext, type PrimitiveKind, type PrimitiveMetadata, type RequestContext, type RequestContextInput } from '../core/context.js';
import type { Policy } from '../core/policy/types.js';
import { authOfToken } from '../adapter/token-auth.js';
import type { ListKind } from '../adapter/list-changes.js';
import { withTimeout } from '../serve/lifetime.js';
import { RelayedError, relayedError } from '../wire/relayed-error.js';
import type { WireConnection } from '../wire/wire-connection.js';
import type { WireGate } from '../wire/wire-gate.js';
import { defaultUpstreamTimeoutMs } from '../wire/upstream.js';
import { UpstreamSupervisor } from './supervisor.js';

/** What an upstream session is opened from: the headers of the downstream session's initialize (none over stdio). */
export interface DownstreamInitialize {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

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

/** What a client is told when no upstream session can be opened (the detail goes to the operator through onError). */
const upstreamUnavailable = () => new RelayedError(ErrorCode.InternalError, 'The upstream server is not available');
/** What a request waiting on an upstream session that ended is answered. */
const upstreamWentAway = () =>
  new RelayedError(
    ErrorCode.InternalError,
    'The upstream server went away before answering this request (it may have acted on it); the next request opens a new upstream session',
  );

/** One upstream session of a downstream session: replaced by a new one when it ends. */
interface UpstreamLink {
  readonly client: Client;
  connection: WireConnection;
  readonly startedAt: number;
  /** Set once the upstream session ended (its process exited, its connection closed, or it stopped answering). */
  lost: boolean;
  /** The ping under way after a transport error. */
  check: Promise<boolean> | undefined;
}

/** Tries of reconnectInBackground before it leaves the reconnection to the session's next request. */
const maxBackgroundAttempts = 360;

const listKinds: Readonly<Record<ListKind, readonly PrimitiveKind[]>> = { tools: ['tool'], prompts: ['prompt'], resources: ['resource', 'resourceTemplate'] };

/**
 * One downstream session of `mcp-gate proxy`: a low-level SDK Server facing the client and an
 * SDK Client facing the upstream, opened when the client's `initialize` arrives so that the
 * upstream sees the client's own name, version and capabilities, and answered with the
 * upstream's capabilities, server info and instructions. Requests go through the wire binding;
 * the upstream's requests (sampling, elicitation, roots) and notifications (logging, progress,
 * resources/updated of visible resources) come back to this session only.
 *
 * The upstream session is supervised: when it ends (the process exits, the HTTP upstream stops
 * answering), the requests waiting on it are answered with an error at once, and the session's
 * next request opens a new upstream session — initialized with the client's own initialize, after
 * the supervisor's back-off — replays the client's subscriptions and log level, and tells the
 * client about lists that changed for it. The downstream session stays open.
 */
export function createProxySession(options: ProxySessionOptions): Server {
  const server = new Server({ name: 'mcp-gate-proxy', version: '0.1.0' }, { capabilities: everyCapability });
  // logging/setLevel is the upstream's to answer, not the SDK server's.
  server.removeRequestHandler('logging/setLevel');
  const supervisor = options.supervisor ?? new UpstreamSupervisor();
  const timeoutMs = options.upstreamTimeoutMs ?? defaultUpstreamTimeoutMs;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 5_000;
  let initialized: { readonly clientInfo: Implementation; readonly capabilities: ClientCapabilities; readonly downstream: DownstreamInitialize } | undefined;
  let upstream: UpstreamLink | undefined;
  let reopening: Promise<UpstreamLink> | undefined;
  let closed = false;
  /** Downstream requests now waiting for the upstream: where an upstream request during one belongs. */
  const forwarding = new Set<string | number>();
  /** The pings of --upstream-ping, running while `forwarding` is not empty. */
  let pinging: ReturnType<typeof setInterval> | undefined;
  /** Set while a new upstream session is sought without a request asking for one. */
  let reconnecting = false;
  /** Session state an upstream session holds, replayed on a new one: subscribed URIs and the log level, each with the request that set it. */
  const subscriptions = new Map<string, RequestContextInput>();
  let logLevel: { readonly params: Record<string, unknown> | undefined; readonly input: RequestContextInput } | undefined;
  /** The latest request's context: what lists are compared for after a restart. */
  let lastInput: RequestContextInput | undefined;

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(pinging);
    void upstream?.client.close().catch(options.onError);
    void server.close().catch(options.onError);
  };
  server.onclose = close;

  /** Whether the upstream session still answers, asked after a transport error; one that does not is closed. */
  function isAlive(link: UpstreamLink): Promise<boolean> {
    if (link.lost) return Promise.resolve(false);
    link.check ??= link.client
      .ping({ timeout: probeTimeoutMs })
      .then(
        () => true,
        async () => {
          await link.client.close().catch(() => undefined);
          return false;
        },
      )
      .finally(() => (link.check = undefined));
    return link.check;
  }

  /** A new upstream session, once the back-off allows, initialized as the client initialized this session. */
  async function openLink(clientInfo: Implementation, capabilities: ClientCapabilities, downstream: DownstreamInitialize): Promise<UpstreamLink> {
    await supervisor.beforeStart();
    if (closed) throw upstreamUnavailable();
    const client = new Client(clientInfo, { capabilities });
    const link: UpstreamLink = { client, connection: undefined as never, startedAt: Date.now(), lost: false, check: undefined };
    client.fallbackRequestHandler = async (upstreamRequest, extra) => {
      // On one stream with the downstream request it serves, when it can only be that one.
      const [only, ...others] = forwarding;
      try {
        return await server.request({ method: upstreamRequest.method, params: upstreamRequest.params } as never, ResultSchema, {
          signal: extra.signal,
          timeout: timeoutMs,
          ...(only !== undefined && others.length === 0 ? { relatedRequestId: only } : {}),
        });
      } catch (error) {
        throw relayedError(error);
      }
    };
    client.fallbackNotificationHandler = async (notification) => {
      if (notification.method === 'notifications/resources/updated') {
        const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
        if (typeof uri !== 'string' || link.connection === undefined || !link.connection.showsResource(uri)) return;
      }
      await server.notification(notification as never);
    };
    client.onerror = (error) => {
      options.onError(error);
      // A transport error (an HTTP stream cut, a refused connection) may mean the upstream is gone.
      if (link.connection !== undefined) void isAlive(link);
    };
    client.onclose = () => {
      if (link.lost) return;
      link.lost = true;
      if (closed) return;
      const waitMs = supervisor.failed(Date.now() - link.startedAt);
      const holdsState = subscriptions.size > 0 || logLevel !== undefined;
      options.onError(
        new Error(
          `the upstream session ended after ${Date.now() - link.startedAt} ms; ${holdsState ? 'a new one is sought now' : "the downstream session's next request opens a new one"}${waitMs > 0 ? ` (in ${waitMs} ms at the earliest)` : ''}`,
        ),
      );
      if (holdsState) reconnectInBackground();
    };
    try {
      await withTimeout(client.connect(options.openUpstream(downstream), { timeout: connectTimeoutMs }), connectTimeoutMs, 'the upstream did not answer initialize');
      link.connection = await withTimeout(
        options.wire.attach(client, {
          notify: (list) => server.notification({ method: `notifications/${list}/list_changed` }),
          isOpen: () => !closed && upstream === link,
        }),
        connectTimeoutMs,
        'the upstream did not answer its lists',
      );
    } catch (error) {
      // The detail (a command that did not start, a refused connection) is the operator's, not the client's.
      options.onError(error);
      link.lost = true;
      supervisor.failed(undefined);
      await client.close().catch(() => undefined);
      throw upstreamUnavailable();
    }
    if (closed) {
      link.lost = true;
      await client.close().catch(() => undefined);
      throw upstreamUnavailable();
    }
    return link;
  }

  /**
   * A session that subscribed to resources or set a log level would hear nothing from a new
   * upstream session until its next request opened one: it gets one now, through the
   * supervisor's back-off (each failed try makes the next wait longer, up to 10 s), replaying its
   * subscriptions. Sessions without such state wait for their next request, so an upstream that
   * comes back is not met by every idle session at once.
   */
  function reconnectInBackground(): void {
    if (reconnecting) return;
    reconnecting = true;
    void (async () => {
      // Bounded: about an hour of tries at the longest back-off; the next request tries again after that.
      for (let attempt = 0; attempt < maxBackgroundAttempts && !closed && (upstream === undefined || upstream.lost); attempt++) {
        await currentLink().catch(() => undefined);
      }
    })().finally(() => (reconnecting = false));
  }

  /** The open upstream session, or a new one in place of the one that ended (one at a time, whoever asks). */
  function currentLink(): Promise<UpstreamLink> {
    if (upstream !== undefined && !upstream.lost) return Promise.resolve(upstream);
    reopening ??= reopen().finally(() => (reopening = undefined));
    return reopening;
  }

  async function reopen(): Promise<UpstreamLink> {
    if (initialized === undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server not initialized');
    const before = upstream;
    const link = await openLink(initialized.clientInfo, initialized.capabilities, initialized.downstream);
    upstream = link;
    // Best effort: a subscription the new upstream refuses is the operator's to hear about, not a reason to fail this request.
    if (logLevel !== undefined) await link.connection.handle({ method: 'logging/setLevel', params: logLevel.params }, logLevel.input).catch(options.onError);
    for (const [uri, input] of subscriptions) await link.connection.handle({ method: 'resources/subscribe', params: { uri } }, input).catch(options.onError);
    if (before !== undefined && lastInput !== undefined) await notifyChangedLists(before.connection, link.connection, lastInput);
    return link;
  }

  /**
   * After a restart, list_changed for each list whose primitives visible to the latest request's
   * context differ (by name and annotation) between the old upstream session and the new one.
   */
  async function notifyChangedLists(before: WireConnection, after: WireConnection, input: RequestContextInput): Promise<void> {
    let context: RequestContext;
    try {
      context = createPlannedRequestContext(input, wholeContext);
    } catch {
      return;
    }
    const policy = options.wire.policy;
    const visible = (connection: WireConnection, kinds: readonly PrimitiveKind[]) =>
      JSON.stringify(
        kinds.map((kind) =>
          connection
            .catalog()
            .entries(kind)
            .filter((entry) => entry.enabled && entry.metadataError === undefined && isAllowed(policy, context, entry.metadata))
            .map((entry) => [entry.key, entry.metadata]),
        ),
      );
    for (const list of Object.keys(listKinds) as ListKind[]) {
      if (visible(before, listKinds[list]) !== visible(after, listKinds[list])) await server.notification({ method: `notifications/${list}/list_changed` });
    }
  }

  server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    if (initialized !== undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server already initialized');
    const { protocolVersion, capabilities, clientInfo } = request.params;
    // A restarted upstream session is opened with the same headers (--forward-header) as the first.
    const downstream: DownstreamInitialize = { headers: extra.requestInfo?.headers ?? {} };
    initialized = { clientInfo, capabilities, downstream };
    let link: UpstreamLink;
    try {
      link = await openLink(clientInfo, capabilities, downstream);
    } catch (error) {
      // The client may initialize again.
      initialized = undefined;
      throw error;
    }
    upstream = link;
    const { client } = link;
    const instructions = client.getInstructions();
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : LATEST_PROTOCOL_VERSION,
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: 'mcp-gate-proxy', version: '0.1.0' },
      ...(instructions === undefined ? {} : { instructions }),
    };
  });

  server.fallbackRequestHandler = async (request, extra) => {
    // `upstream` is set once initialize succeeded, and stays set (ended or not) from then on.
    if (initialized === undefined || upstream === undefined) throw new RelayedError(ErrorCode.InvalidRequest, 'Server not initialized');
    const link = upstream !== undefined && !upstream.lost ? upstream : await currentLink();
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
        if (upstream !== undefined && !upstream.lost && upstream.check === undefined) void isAlive(upstream);
      }, options.upstreamPingMs);
    }
    try {
      const result = await link.connection.handle({ method: request.method, params, id: request.id }, input, { signal: extra.signal, onprogress, timeoutMs });
      await Promise.all(progressSent);
      rememberSessionState(request.method, params, input);
      return result as never;
    } catch (error) {
      // The SDK rejects what was waiting on a closed connection; a transport error is checked with a ping.
      if (link.lost || (!extra.signal.aborted && !(error instanceof RelayedError) && !(await isAlive(link)))) throw upstreamWentAway();
      throw error;
    } finally {
      forwarding.delete(request.id);
      if (forwarding.size === 0) {
        clearInterval(pinging);
        pinging = undefined;
      }
    }
  };

  function rememberSessionState(method: string, params: Record<string, unknown> | undefined, input: RequestContextInput): void {
    const uri = params?.['uri'];
    if (method === 'resources/subscribe' && typeof uri === 'string') subscriptions.set(uri, input);
    else if (method === 'resources/unsubscribe' && typeof uri === 'string') subscriptions.delete(uri);
    else if (method === 'logging/setLevel') logLevel = { params, input };
  }

  // The client's notifications (roots/list_changed and the like) go upstream; cancellation and
  // initialized are the SDK's own to handle on each side.
  server.fallbackNotificationHandler = async (notification) => {
    if (upstream !== undefined && !upstream.lost) await upstream.client.notification(notification as never);
  };
  return server;
}

function isAllowed(policy: Policy, context: RequestContext, metadata: PrimitiveMetadata): boolean {
  try {
    return policy.evaluate(context, metadata) === true;
  } catch {
    return false;
  }
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

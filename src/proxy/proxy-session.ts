import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  ResultSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type Implementation,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestContextInput } from '../core/context.js';
import { authOfToken } from '../adapter/token-auth.js';
import { relayedError } from '../wire/relayed-error.js';
import type { WireConnection } from '../wire/wire-connection.js';
import type { WireGate } from '../wire/wire-gate.js';
import { defaultUpstreamTimeoutMs } from '../wire/upstream.js';

export interface ProxySessionOptions {
  readonly wire: WireGate;
  /** A fresh transport to the upstream (a spawned process, a new HTTP session); one per downstream session, given the headers of its initialize. */
  readonly openUpstream: (downstream: { readonly headers: Readonly<Record<string, string | string[] | undefined>> }) => Transport;
  /** What failed outside any request: the upstream's transport, a relayed notification. */
  readonly onError: (error: unknown) => void;
  /** A forwarded request without progress fails after this long (default 10 minutes). */
  readonly upstreamTimeoutMs?: number;
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
 * resources/updated of visible resources) come back to this session only.
 */
export function createProxySession(options: ProxySessionOptions): Server {
  const server = new Server({ name: 'mcp-gate-proxy', version: '0.1.0' }, { capabilities: everyCapability });
  // logging/setLevel is the upstream's to answer, not the SDK server's.
  server.removeRequestHandler('logging/setLevel');
  let upstream: { client: Client; connection: WireConnection } | undefined;
  let clientInfo: Implementation | undefined;
  let clientCapabilities: ClientCapabilities | undefined;
  let closed = false;
  /** Downstream requests now waiting for the upstream: where an upstream request during one belongs. */
  const forwarding = new Set<string | number>();
  const timeoutMs = options.upstreamTimeoutMs ?? defaultUpstreamTimeoutMs;

  const close = () => {
    if (closed) return;
    closed = true;
    void upstream?.client.close().catch(options.onError);
    void server.close().catch(options.onError);
  };
  server.onclose = close;

  server.setRequestHandler(InitializeRequestSchema, async (request, extra) => {
    if (upstream !== undefined) throw new McpError(ErrorCode.InvalidRequest, 'Server already initialized');
    const { protocolVersion, capabilities, clientInfo: info } = request.params;
    clientInfo = info;
    clientCapabilities = capabilities;
    const client = new Client(info, { capabilities });
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
        if (typeof uri !== 'string' || !upstream?.connection.showsResource(uri)) return;
      }
      await server.notification(notification as never);
    };
    client.onerror = options.onError;
    // The upstream going away ends this session; its client initializes again and gets a new upstream.
    client.onclose = close;
    let connection: WireConnection;
    try {
      await client.connect(options.openUpstream({ headers: extra.requestInfo?.headers ?? {} }), { timeout: timeoutMs });
      connection = await options.wire.attach(client, {
        notify: (list) => server.notification({ method: `notifications/${list}/list_changed` }),
        isOpen: () => !closed,
      });
    } catch (error) {
      // The detail (a command that did not start, a refused connection) is the operator's, not the client's.
      options.onError(error);
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      throw new McpError(ErrorCode.InternalError, 'The upstream server is not available');
    }
    upstream = { client, connection };
    const instructions = client.getInstructions();
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : LATEST_PROTOCOL_VERSION,
      capabilities: client.getServerCapabilities() ?? {},
      serverInfo: client.getServerVersion() ?? { name: 'mcp-gate-proxy', version: '0.1.0' },
      ...(instructions === undefined ? {} : { instructions }),
    };
  });

  server.fallbackRequestHandler = async (request, extra) => {
    if (upstream === undefined) throw new McpError(ErrorCode.InvalidRequest, 'Server not initialized');
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
    const input = contextInput(request.method, extra, clientInfo, clientCapabilities);
    forwarding.add(request.id);
    try {
      const result = await upstream.connection.handle({ method: request.method, params, id: request.id }, input, { signal: extra.signal, onprogress, timeoutMs });
      await Promise.all(progressSent);
      return result as never;
    } finally {
      forwarding.delete(request.id);
    }
  };

  // The client's notifications (roots/list_changed and the like) go upstream; cancellation and
  // initialized are the SDK's own to handle on each side.
  server.fallbackNotificationHandler = async (notification) => {
    await upstream?.client.notification(notification as never);
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

// The upstream side of a 2026-07-28 stateless request: the v1 SDK Client the wire binding drives,
// over the v2 SDK's own Streamable HTTP client transport (or a spawned upstream's stdio,
// stdio-stateless-upstream.ts), with no session and no handshake. Every request the Client sends
// carries the `_meta` envelope of the downstream request it is made for.
import { AsyncLocalStorage } from 'node:async_hooks';
import { StreamableHTTPClientTransport as ModernHttpTransport, type JSONRPCMessage as ModernMessage } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey, serverInfoMetaKey } from '../adapter/envelope.js';
import { upstreamFetch } from './upstream-fetch.js';

/** The protocol revision whose requests are stateless and carry their envelope. */
export const statelessProtocolVersion = '2026-07-28';

/** The reserved `_meta` keys of one downstream request (protocol version, client info, capabilities), as it sent them. */
export type EnvelopeMeta = Readonly<Record<string, unknown>>;

/** The envelope keys of a request's `_meta`, and only those (a progress token or trace context is per request, not per client). */
export function envelopeMetaOf(meta: unknown): EnvelopeMeta {
  const envelope: Record<string, unknown> = {};
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return envelope;
  for (const key of [protocolVersionMetaKey, clientInfoMetaKey, clientCapabilitiesMetaKey]) {
    if (key in meta) envelope[key] = (meta as Record<string, unknown>)[key];
  }
  return envelope;
}

/**
 * The headers of the downstream request being forwarded that belong to its body rather than to
 * its client: SEP-2243's `Mcp-Param-*`, the values of a tool's header parameters, which a
 * 2026-07-28 server checks against the body of a `tools/call`. They differ per call, so they are
 * not part of a connection's headers; the request's handling runs inside `withCallHeaders`, and
 * the transport adds them to the `tools/call` it sends for it.
 */
const callHeaders = new AsyncLocalStorage<Readonly<Record<string, string>>>();

export function withCallHeaders<T>(downstream: Readonly<Record<string, string | string[] | undefined>>, task: () => Promise<T>): Promise<T> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(downstream)) {
    if (name.startsWith('mcp-param-') && typeof value === 'string') headers[name] = value;
  }
  return callHeaders.run(headers, task);
}

/**
 * What a stateless request travels over: the v2 Streamable HTTP client transport, or a channel
 * of a spawned upstream's stdio. `send` settles when the request's answer has been delivered
 * (or failed); aborting `requestSignal` cancels the request.
 */
export interface StatelessChannel {
  onmessage?: (message: ModernMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  start(): Promise<void>;
  send(message: ModernMessage, options?: { requestSignal?: AbortSignal; headers?: Record<string, string> }): Promise<void>;
  close(): Promise<void>;
}

/** Where stateless requests go: a Streamable HTTP URL, or something that opens channels (a spawned upstream). */
export type StatelessTarget = URL | { openChannel(): StatelessChannel };

function openChannel(target: StatelessTarget, headers: Readonly<Record<string, string>>): StatelessChannel {
  return target instanceof URL ? new ModernHttpTransport(target, { requestInit: { headers: { ...headers } }, fetch: upstreamFetch }) : target.openChannel();
}

/**
 * A v1 Transport over a stateless channel (the v2 Streamable HTTP client transport). The v2 transport derives the
 * 2026-07-28 headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) from each request's own
 * envelope; this one puts the envelope there. Cancelling a request is closing its HTTP request
 * in 2026-07-28 (there is no session to send `notifications/cancelled` to), so the Client's
 * cancellation aborts that request's fetch instead of being sent.
 */
class StatelessUpstreamTransport implements Transport {
  // The v1 Client skips `initialize` on a transport that already has a session id (a reconnect).
  // A stateless upstream has neither: each request stands alone, so the Client must not send one.
  // The id is never sent anywhere (the v2 transport keeps its own, which stays empty).
  readonly sessionId = 'stateless';
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #channel: StatelessChannel;
  readonly #envelope: EnvelopeMeta;
  readonly #paramHeaders: ParamHeaders | undefined;
  /** Requests waiting on the upstream, by id: aborting one closes its HTTP request. */
  readonly #waiting = new Map<string | number, AbortController>();

  constructor(target: StatelessTarget, headers: Readonly<Record<string, string>>, envelope: EnvelopeMeta, paramHeaders?: ParamHeaders) {
    this.#channel = openChannel(target, headers);
    this.#envelope = envelope;
    this.#paramHeaders = paramHeaders;
  }

  async start(): Promise<void> {
    this.#channel.onmessage = (message) => {
      if ('id' in message && !('method' in message)) this.#waiting.delete(message.id as string | number);
      this.onmessage?.(message as JSONRPCMessage);
    };
    this.#channel.onerror = (error) => {
      // The upstream's JSON-RPC answer carried by an HTTP error (a 404 for a method it does not serve) is relayed as that
      // answer by send, not reported as a transport fault (a bridged session would check the upstream after each one).
      for (const id of this.#waiting.keys()) if (errorAnswerIn(error, id) !== undefined) return;
      this.onerror?.(error);
    };
    this.#channel.onclose = () => this.onclose?.();
    await this.#channel.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message) {
      const abort = new AbortController();
      this.#waiting.set(message.id, abort);
      // The envelope wins over whatever `_meta` the request had: the lists fetched for this envelope must be the ones its requests see.
      const params = { ...message.params, _meta: { ...message.params?._meta, ...this.#envelope } };
      try {
        const headers = message.method === 'tools/call' ? (callHeaders.getStore() ?? this.#paramHeaders?.(message.params)) : undefined;
        await this.#channel.send({ ...message, params } as ModernMessage, { requestSignal: abort.signal, ...(headers === undefined ? {} : { headers }) });
      } catch (error) {
        this.#waiting.delete(message.id);
        const answer = errorAnswerIn(error, message.id);
        if (answer === undefined) throw error;
        this.onmessage?.(answer);
      }
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (requestId !== undefined) this.#waiting.get(requestId)?.abort();
    }
    // Other notifications and responses have no place in a stateless exchange (no server→client requests to answer).
  }

  async close(): Promise<void> {
    for (const abort of this.#waiting.values()) abort.abort();
    await this.#channel.close();
  }
}

/**
 * The JSON-RPC error answer to request `id` that an HTTP error carries. A 2026-07-28 server
 * answers some errors with an HTTP status (404 for a method it does not serve, such as
 * `prompts/list` on a server without prompts); the v2 transport hands the body on as a message
 * only for 400, and throws for the others with the body in `data.text`. It is the upstream's
 * answer all the same, and is relayed as one.
 */
function errorAnswerIn(error: unknown, id: string | number): JSONRPCMessage | undefined {
  const text = (error as { data?: { text?: unknown } } | null | undefined)?.data?.text;
  if (typeof text !== 'string') return undefined;
  try {
    const answer = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown } };
    const isError = answer.jsonrpc === '2.0' && answer.id === id && typeof answer.error?.code === 'number' && typeof answer.error.message === 'string';
    return isError ? (answer as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A v1 Client for one downstream envelope and one set of upstream headers, connected without a
 * handshake: what the wire binding fetches lists and forwards requests through. The Client's own
 * name and capabilities are never sent; the envelope is.
 */
export async function connectStatelessUpstream(target: StatelessTarget, headers: Readonly<Record<string, string>>, envelope: EnvelopeMeta): Promise<Client> {
  const client = new Client({ name: 'mcp-gate-proxy-stateless', version: '0.1.0' });
  await client.connect(createStatelessUpstreamTransport(target, headers, envelope));
  return client;
}

/** The `Mcp-Param-*` headers of a `tools/call` with these params, for a caller whose own request had none to pass on. */
export type ParamHeaders = (params: Record<string, unknown> | undefined) => Readonly<Record<string, string>> | undefined;

/**
 * The transport under connectStatelessUpstream, for a Client made elsewhere (a bridged 2025-era
 * session's, bridge-upstream.ts): its connect sends nothing. `paramHeaders` writes the headers of
 * a call that runs outside withCallHeaders.
 */
export function createStatelessUpstreamTransport(
  target: StatelessTarget,
  headers: Readonly<Record<string, string>>,
  envelope: EnvelopeMeta,
  paramHeaders?: ParamHeaders,
): Transport {
  return new StatelessUpstreamTransport(target, headers, envelope, paramHeaders);
}

/** The envelope the proxy's own startup requests carry (the check and, upstream of a 2026-07-28-only server, the summary). */
export const startupEnvelope: EnvelopeMeta = {
  [protocolVersionMetaKey]: statelessProtocolVersion,
  [clientInfoMetaKey]: { name: 'mcp-gate-proxy-startup-check', version: '0.1.0' },
  [clientCapabilitiesMetaKey]: {},
};

/**
 * The upstream's answer to a 2026-07-28 `server/discover` request when it lists that revision in
 * `supportedVersions`, else undefined (a 2025-era server's 400, a transport error).
 */
export async function discoverStatelessUpstream(
  target: StatelessTarget,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<Record<string, unknown> | undefined> {
  const client = await connectStatelessUpstream(target, headers, startupEnvelope);
  try {
    const result = await client.request({ method: 'server/discover' } as never, ResultSchema, { timeout: timeoutMs });
    const supported = (result as { supportedVersions?: unknown }).supportedVersions;
    return Array.isArray(supported) && supported.includes(statelessProtocolVersion) ? result : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The server name a discover result gives in its `_meta` (a SHOULD of 2026-07-28). */
export function serverNameOf(discover: Record<string, unknown>): string | undefined {
  const info = (discover['_meta'] as Record<string, unknown> | undefined)?.[serverInfoMetaKey] as { name?: unknown } | undefined;
  return typeof info?.name === 'string' ? info.name : undefined;
}

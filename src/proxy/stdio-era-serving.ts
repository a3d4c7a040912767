// `mcp-gate proxy --stdio` in both protocol eras. As `serveStdio` of `@modelcontextprotocol/server`
// does, the opening exchange picks the era of the connection: an `initialize` (or any message
// without a 2026-07-28 envelope) opens the 2025-era proxy session, exactly as before; a message
// whose `_meta` claims a protocol revision (a 2026-07-28 client's `server/discover`, or its first
// request when it probed on a sibling process) pins the connection to 2026-07-28, where every
// request is decided on its own envelope and goes upstream as a stateless request, as over HTTP
// (stateless-requests.ts), without the HTTP parts: no headers, no endpoint, no token.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { protocolVersionMetaKey } from '../adapter/envelope.js';
import { aborted, type Serving } from '../serve/lifetime.js';
import { progressNotification, progressTokenOf, shapeStatelessResult, statelessContextInput, statelessErrorOf } from './stateless-answers.js';
import type { StatelessConnections } from './stateless-connections.js';
import type { StatelessListeners } from './stateless-listen.js';
import { StdioListenSink } from './stateless-listen-sinks.js';
import { envelopeMetaOf } from './stateless-upstream.js';

export interface StdioEraOptions {
  readonly stdio: { readonly input: Readable; readonly output: Writable };
  readonly signal: AbortSignal;
  /** The 2025-era proxy session (proxy-session.ts), for a connection that opens as 2025-era. */
  readonly legacySession: () => { connect(transport: Transport): Promise<void>; close(): Promise<void> };
  /** Where 2026-07-28 requests go (the upstream speaks it: proxy-runtime.ts serves stdio this way only then). */
  readonly stateless: StatelessConnections;
  /** Change streams (stateless-listen.ts). */
  readonly listeners: StatelessListeners;
  /** The upstream headers of every 2026-07-28 request (--upstream-header; stdio has no headers to forward). */
  readonly upstreamHeaders: Readonly<Record<string, string>>;
  /** The upstream speaks only 2026-07-28: every message goes the stateless way, and an `initialize` gets the upstream's own refusal. */
  readonly only?: boolean | undefined;
  readonly onError: (error: unknown) => void;
}

type Params = Record<string, unknown> | undefined;

/** Whether the message's `_meta` claims a protocol revision: the one signal of a 2026-07-28 message on stdio (there are no headers). */
function claimsRevision(message: JSONRPCMessage): boolean {
  const meta = ('params' in message ? (message.params as Params) : undefined)?.['_meta'] as Params;
  return typeof meta?.[protocolVersionMetaKey] === 'string';
}

export async function serveProxyStdioEras(options: StdioEraOptions): Promise<Serving> {
  const wire = new StdioServerTransport(options.stdio.input, options.stdio.output);
  let era: 'opening' | 'legacy' | 'modern' = 'opening';
  let legacy: { channel: LegacyChannel; session: ReturnType<StdioEraOptions['legacySession']> } | undefined;
  /** 2026-07-28 requests waiting on the upstream, by id: a `notifications/cancelled` aborts one. */
  const inFlight = new Map<string | number, AbortController>();
  const queue: JSONRPCMessage[] = [];
  let pumping = false;

  const send = (message: JSONRPCMessage) => wire.send(message).catch(options.onError);

  const answerModern = async (request: { id: string | number; method: string; params: Params }) => {
    const { id, method, params } = request;
    if (method === 'subscriptions/listen') {
      // A change stream, relayed as over HTTP (stateless-listen.ts) as far as this listener may see, as lines among
      // the other answers; its `notifications/cancelled` (or the end of stdio) ends it.
      const gone = new AbortController();
      inFlight.set(id, gone);
      try {
        const sink = new StdioListenSink(id, (message) => void send(message as JSONRPCMessage), gone.signal);
        const input = statelessContextInput(method, params, overStdio);
        if ((await options.listeners.serve(sink, { id, params }, input, options.upstreamHeaders)) === 'unavailable' && !sink.started && !gone.signal.aborted) {
          await send({ jsonrpc: '2.0', id, error: { code: -32603, message: 'The upstream server is not available' } });
        }
      } finally {
        inFlight.delete(id);
      }
      return;
    }
    const abort = new AbortController();
    inFlight.set(id, abort);
    const progressToken = progressTokenOf(params);
    const onprogress =
      progressToken === undefined ? undefined : (progress: { progress: number; total?: number; message?: string }) => void send(progressNotification(progress, progressToken));
    try {
      const result = (await options.stateless.use(envelopeMetaOf(params?.['_meta']), options.upstreamHeaders, (connection) =>
        connection.handle({ method, params, id }, statelessContextInput(method, params, overStdio), { signal: abort.signal, onprogress }),
      )) as Record<string, unknown>;
      // The member order of `@modelcontextprotocol/server` 2.4's own answers, so a relayed answer reads as the upstream's.
      if (!abort.signal.aborted) await send({ result: shapeStatelessResult(method, result), jsonrpc: '2.0', id } as JSONRPCMessage);
    } catch (error) {
      // Cancelled by the client: a cancelled request is not answered.
      if (abort.signal.aborted) return;
      await send({ jsonrpc: '2.0', id, error: statelessErrorOf(error, options.onError) });
    } finally {
      inFlight.delete(id);
    }
  };

  const onModern = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) {
      void answerModern({ id: message.id, method: message.method, params: message.params as Params }).catch(options.onError);
    } else if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (requestId !== undefined) inFlight.get(requestId)?.abort();
    }
    // Other notifications have nothing to do in 2026-07-28 (no session); answers have no request of ours to settle.
  };

  const processMessage = async (message: JSONRPCMessage) => {
    if (era === 'opening') {
      if (!('method' in message)) return; // an answer before anything was asked: nothing to settle
      if (options.only === true || claimsRevision(message)) era = 'modern';
      else {
        era = 'legacy';
        const channel = new LegacyChannel(wire);
        legacy = { channel, session: options.legacySession() };
        await legacy.session.connect(channel);
      }
    }
    if (era === 'modern') onModern(message);
    else legacy?.channel.onmessage?.(message);
  };

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) await processMessage(queue.shift()!).catch(options.onError);
    } finally {
      pumping = false;
    }
  };

  const ended = new Promise<void>((resolve) => {
    options.stdio.input.once('end', resolve);
    options.stdio.input.once('close', resolve);
    wire.onclose = () => {
      legacy?.channel.onclose?.();
      resolve();
    };
  });
  wire.onmessage = (message) => {
    queue.push(message);
    void pump();
  };
  wire.onerror = (error) => (legacy === undefined ? options.onError(error) : legacy.channel.onerror?.(error));
  await wire.start();
  const close = async () => {
    for (const abort of inFlight.values()) abort.abort();
    await legacy?.session.close();
    await wire.close();
  };
  return { done: Promise.race([ended, aborted(options.signal)]), close };
}

/** The policy's view of a 2026-07-28 request over stdio: the client from its own envelope; no headers, endpoint or token. */
const overStdio = { headers: {}, endpoint: '' } as const;

/** The 2025-era session's transport: the proxy's stdio, after the opening message picked that era. */
class LegacyChannel implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #wire: Transport;

  constructor(wire: Transport) {
    this.#wire = wire;
  }

  async start(): Promise<void> {}

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#wire.send(message, options);
  }

  close(): Promise<void> {
    return this.#wire.close();
  }
}

// 2026-07-28 stateless requests to a spawned upstream (--upstream-cmd), over its stdio. A 2026-07-28
// request carries its own `_meta` envelope, so one process serves every downstream envelope: its
// first enveloped message pins its stdio connection to 2026-07-28 (`serveStdio` of
// `@modelcontextprotocol/server`, and the spec's stdio binding: no `initialize`, no session), and
// every request after it is answered on its own envelope. The requests of many v1 Clients (one
// per envelope, stateless-connections.ts) share the process under ids of its own.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage as ModernMessage } from '@modelcontextprotocol/client';
import type { UpstreamListenAnswer, UpstreamListenRequest, UpstreamMessage } from './stateless-listen-upstream.js';
import type { StatelessChannel } from './stateless-upstream.js';
import { SpawnedListen, subscriptionOf } from './stdio-stateless-listen.js';
import { UpstreamSupervisor } from './supervisor.js';

type Id = string | number;

interface Waiting {
  readonly channel: Channel;
  readonly id: Id;
  readonly progressToken: Id | undefined;
  readonly settle: (error?: Error) => void;
}

/** The error a request waiting on the process gets when the process ends (the wire answers "The upstream server is not available"). */
export class UpstreamProcessExited extends Error {
  override readonly name = 'UpstreamProcessExited';
}

/**
 * One spawned upstream process that speaks 2026-07-28, supervised: a process that exits fails
 * the requests waiting on it, and the next request spawns a new one after the shared back-off
 * (supervisor.ts). It never takes the proxy down.
 */
export class SpawnedStatelessUpstream {
  readonly #spawn: () => Transport;
  readonly #supervisor: UpstreamSupervisor;
  readonly #onError: (error: unknown) => void;
  #process: Promise<Transport> | undefined;
  /** The process spawned last: only its exit fails the requests waiting. */
  #live: Transport | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, Waiting>();
  /** Open listens (`subscriptions/listen`) by their id on the process. */
  readonly #listens = new Map<number, SpawnedListen>();
  #closed = false;

  constructor(spawn: () => Transport, options: { readonly onError: (error: unknown) => void; readonly supervisor?: UpstreamSupervisor }) {
    this.#spawn = spawn;
    this.#onError = options.onError;
    this.#supervisor = options.supervisor ?? new UpstreamSupervisor();
  }

  /** A channel for one v1 Client (stateless-upstream.ts): its requests go to the shared process under ids of the process's own. */
  openChannel(): StatelessChannel {
    return new Channel(this);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const running = this.#process;
    this.#process = undefined;
    this.#live = undefined;
    this.#failWaiting(new UpstreamProcessExited('the proxy is closing'));
    this.#endListens();
    await (await running?.catch(() => undefined))?.close().catch(() => undefined);
  }

  /** Sends `message` (a request of `channel`) and settles when its answer has been delivered to the channel. */
  async request(channel: Channel, message: JSONRPCMessage & { id: Id }, signal: AbortSignal | undefined): Promise<void> {
    if (this.#closed) throw new UpstreamProcessExited('the proxy is closing');
    const upstream = await this.#running();
    signal?.throwIfAborted();
    const upstreamId = this.#nextId++;
    const params = (message as { params?: Record<string, unknown> }).params;
    const meta = params?.['_meta'] as Record<string, unknown> | undefined;
    const progressToken = meta?.['progressToken'] as Id | undefined;
    // The Client's own progress token is its request id, which another Client may use too: the process gets its own id as token.
    const sent = {
      ...message,
      id: upstreamId,
      ...(params === undefined ? {} : { params: progressToken === undefined ? params : { ...params, _meta: { ...meta, progressToken: upstreamId } } }),
    } as JSONRPCMessage;
    const answered = new Promise<void>((resolve, reject) => {
      this.#waiting.set(upstreamId, { channel, id: message.id, progressToken, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
    // It may fail (the process exits, the request is cancelled) while the send is still being written: awaited below all the same.
    answered.catch(() => undefined);
    const onAbort = () => {
      // 2026-07-28 over stdio cancels as 2025 did: a notification naming the request (with the request's envelope).
      const envelope = Object.fromEntries(Object.entries(meta ?? {}).filter(([key]) => key.startsWith('io.modelcontextprotocol/')));
      void upstream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, _meta: envelope } }).catch(() => undefined);
      this.#settle(upstreamId, new DOMException('The request was cancelled', 'AbortError'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await upstream.send(sent);
      await answered;
    } catch (error) {
      this.#waiting.delete(upstreamId);
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Opens a listen on the process (stateless-listen.ts relays it, filtered), under an id of the
   * process's own: its messages are told apart by the subscription id stamped on them. Aborting
   * `signal` cancels it upstream. Undefined when the process could not be asked.
   */
  async openListen(request: UpstreamListenRequest, signal: AbortSignal, timeoutMs: number): Promise<UpstreamListenAnswer | undefined> {
    if (this.#closed || signal.aborted) return undefined;
    let upstream: Transport;
    try {
      upstream = await this.#running();
    } catch {
      return undefined;
    }
    const upstreamId = this.#nextId++;
    const listen = new SpawnedListen(request.id);
    this.#listens.set(upstreamId, listen);
    const close = () => {
      if (this.#listens.get(upstreamId) !== listen) return;
      this.#listens.delete(upstreamId);
      if (!listen.ended) {
        // Ended from downstream: the process's listen router drops it on the cancellation naming it.
        const envelope = Object.fromEntries(Object.entries(request.params._meta).filter(([key]) => key.startsWith('io.modelcontextprotocol/')));
        void upstream.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upstreamId, _meta: envelope } }).catch(() => undefined);
      }
      listen.end();
    };
    signal.addEventListener('abort', close, { once: true });
    try {
      await upstream.send({ jsonrpc: '2.0', id: upstreamId, method: 'subscriptions/listen', params: request.params } as JSONRPCMessage);
    } catch {
      close();
      return undefined;
    }
    const answer = await listen.opened(timeoutMs, close);
    if (answer?.kind !== 'stream') close();
    return answer;
  }

  #endListens(): void {
    for (const listen of this.#listens.values()) listen.end();
    this.#listens.clear();
  }

  #settle(upstreamId: number, error?: Error): void {
    const waiting = this.#waiting.get(upstreamId);
    if (waiting === undefined) return;
    this.#waiting.delete(upstreamId);
    waiting.settle(error);
  }

  #failWaiting(error: Error): void {
    for (const upstreamId of [...this.#waiting.keys()]) this.#settle(upstreamId, error);
  }

  /** The process, spawned (again) when there is none: after the supervisor's back-off if the last one failed. */
  #running(): Promise<Transport> {
    this.#process ??= this.#start().catch((error: unknown) => {
      this.#process = undefined;
      this.#supervisor.failed(undefined);
      throw error;
    });
    return this.#process;
  }

  async #start(): Promise<Transport> {
    await this.#supervisor.beforeStart();
    const transport = this.#spawn();
    const startedAt = Date.now();
    this.#live = transport;
    transport.onmessage = (message) => this.#receive(transport, message);
    transport.onerror = (error) => this.#onError(error);
    transport.onclose = () => {
      // Only the process now in use: a closed old one has already been replaced.
      if (this.#live !== transport) return;
      this.#live = undefined;
      this.#process = undefined;
      if (!this.#closed) this.#supervisor.failed(Date.now() - startedAt);
      this.#failWaiting(new UpstreamProcessExited('the upstream process exited'));
      this.#endListens();
    };
    await transport.start();
    return transport;
  }

  #receive(upstream: Transport, message: JSONRPCMessage): void {
    const listenId = 'method' in message ? subscriptionOf(message as UpstreamMessage) : 'id' in message ? message.id : undefined;
    const listen = typeof listenId === 'number' ? this.#listens.get(listenId) : undefined;
    if (listen !== undefined) {
      // The listen's acknowledgement, a change, or its end (the answer, or the process's cancellation naming it).
      if ('method' in message && message.method === 'notifications/cancelled') listen.end();
      else listen.deliver(message as UpstreamMessage);
      if (listen.ended) this.#listens.delete(listenId as number);
      return;
    }
    if (!('method' in message)) {
      const waiting = 'id' in message ? this.#waiting.get(message.id as number) : undefined;
      if (waiting === undefined) return;
      waiting.channel.deliver({ ...message, id: waiting.id } as JSONRPCMessage);
      this.#settle(message.id as number);
      return;
    }
    if ('id' in message) {
      // 2026-07-28 has no server→client requests (a server asks with an input_required result): refused, so the process does not wait.
      void upstream.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }).catch(() => undefined);
      return;
    }
    if (message.method === 'notifications/progress') {
      const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
      const waiting = typeof token === 'number' ? this.#waiting.get(token) : undefined;
      if (waiting?.progressToken !== undefined) waiting.channel.deliver({ ...message, params: { ...message.params, progressToken: waiting.progressToken } });
    }
    // Other notifications (list changes, logs) are for a subscriber; the proxy has none upstream.
  }
}

/** One v1 Client's view of the shared process (StatelessChannel): requests out, their answers and progress back. */
class Channel implements StatelessChannel {
  onmessage?: (message: ModernMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #upstream: SpawnedStatelessUpstream;

  constructor(upstream: SpawnedStatelessUpstream) {
    this.#upstream = upstream;
  }

  async start(): Promise<void> {}

  async send(message: ModernMessage, options?: { requestSignal?: AbortSignal }): Promise<void> {
    // Only requests: stateless-upstream.ts turns a cancellation into aborting the request's signal.
    if (!('method' in message) || !('id' in message)) return;
    await this.#upstream.request(this, message as JSONRPCMessage & { id: Id }, options?.requestSignal);
  }

  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message as ModernMessage);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

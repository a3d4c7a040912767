// resources/subscribe and resources/unsubscribe of a bridged session (bridge-upstream.ts). A
// 2026-07-28 server has neither: a client asks for resource updates with a `subscriptions/listen`
// request whose filter names the URIs (`resourceSubscriptions`), and gets them on its stream. The
// bridge keeps one such listen per bridged session, with the session's envelope and headers, for
// the URIs the session subscribed to; as a listen's filter is fixed when it opens, a change of
// subscriptions opens a new one, and the old one is closed once the new one is acknowledged (an
// update in between may come twice, none is lost).
//
// The subscribe requests themselves are gated as a 2025-era session's are (WireConnection): a
// hidden URI reaches the bridge as a probe URI, is answered as any URI is (`{}`; a 2026-07-28
// server acknowledges a URI it does not have as one it has), and is never put in the filter.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isProbeUri } from '../wire/unknown-probe.js';
import { openUpstreamListen } from './stateless-listen-upstream.js';
import type { EnvelopeMeta } from './stateless-upstream.js';

/** How long the upstream may take to answer a listen request (as for a stateless listener, stateless-listen.ts). */
const listenAnswerTimeoutMs = 30_000;
/** A listen that ended on its own is opened again after this pause, doubled after each failure in a row (at most maxRetries). */
const retryPauseMs = 500;
const maxRetries = 8;

export interface ListenTarget {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** The session's envelope as it is now (its log level may have changed). */
  envelope(): EnvelopeMeta;
  readonly onError: (error: unknown) => void;
}

interface OpenListen {
  readonly uris: ReadonlySet<string>;
  readonly abort: AbortController;
}

/** The subscriptions of one bridged session, and the upstream listen that carries them. */
export class BridgedSubscriptions {
  readonly #target: ListenTarget;
  readonly #uris = new Set<string>();
  #listen: OpenListen | undefined;
  #deliver: ((uri: string) => void) | undefined;
  /** Whether the session may see a resource now (decided on its latest request): the last upstream side's, kept when it closes. */
  #shows: (uri: string) => boolean = () => false;
  #serial = 0;
  /** A listen is being opened and not yet acknowledged: changes meanwhile wait for it (`#changedMeanwhile`). */
  #opening = false;
  #changedMeanwhile = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(target: ListenTarget) {
    this.#target = target;
  }

  /** Where updates go, and who decides what may go upstream: the session's current upstream side (replaced when it is). */
  deliverTo(deliver: ((uri: string) => void) | undefined, shows?: (uri: string) => boolean): void {
    this.#deliver = deliver;
    if (shows !== undefined) this.#shows = shows;
  }

  isDeliveringTo(deliver: (uri: string) => void): boolean {
    return this.#deliver === deliver;
  }

  /** A subscribe or unsubscribe the gate let through: the listen is opened again when the set changed. */
  change(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): void {
    if (isProbeUri(uri) || this.#closed) return;
    const had = this.#uris.has(uri);
    if (method === 'resources/subscribe' && !had) this.#uris.add(uri);
    else if (method === 'resources/unsubscribe' && had) this.#uris.delete(uri);
    else return;
    this.#failures = 0;
    this.#reopen();
  }

  /** The listen being opened was acknowledged, or ended first: the changes that waited for it open the next. */
  #opened(): void {
    if (!this.#opening) return;
    this.#opening = false;
    if (this.#changedMeanwhile) {
      this.#changedMeanwhile = false;
      this.#reopen();
    }
  }

  /** The session ended: its listen is closed. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#listen?.abort.abort();
    this.#listen = undefined;
  }

  #reopen(): void {
    // One listen opening at a time: a burst of subscribes opens one more listen for all of them once
    // the one under way is acknowledged, not one upstream stream per subscribe.
    if (this.#opening) {
      this.#changedMeanwhile = true;
      return;
    }
    clearTimeout(this.#retry);
    const previous = this.#listen;
    this.#listen = undefined;
    // A URI subscribed to while the session could see it, hidden from it since (its context changed, or the policy), is not sent again.
    const uris = new Set([...this.#uris].filter((uri) => this.#shows(uri)));
    if (this.#closed || uris.size === 0) {
      previous?.abort.abort();
      return;
    }
    const listen: OpenListen = { uris, abort: new AbortController() };
    this.#listen = listen;
    this.#opening = true;
    void this.#run(listen, previous);
  }

  async #run(listen: OpenListen, previous: OpenListen | undefined): Promise<void> {
    const { url, headers, envelope, onError } = this.#target;
    const id = `mcp-gate-bridge-listen-${++this.#serial}`;
    try {
      const params = { notifications: { resourceSubscriptions: [...listen.uris] }, _meta: envelope() };
      const answer = await openUpstreamListen(url, headers, { id, params }, listen.abort.signal, listenAnswerTimeoutMs);
      if (answer === undefined) throw new Error("the upstream did not answer the bridged session's subscriptions/listen");
      if (answer.kind === 'answer') throw new Error(`the upstream refused the bridged session's subscriptions/listen: ${JSON.stringify(answer.message['error'])}`);
      for await (const message of answer.messages) {
        const params = message['params'] as { uri?: unknown } | undefined;
        if (message['method'] === 'notifications/subscriptions/acknowledged') {
          this.#failures = 0;
          previous?.abort.abort();
          previous = undefined;
          this.#opened();
        } else if (message['method'] === 'notifications/resources/updated' && typeof params?.uri === 'string') {
          // Only for a URI this listen asked for and the session still holds (an unsubscribe closes the old listen a little later).
          if (listen.uris.has(params.uri) && this.#uris.has(params.uri)) this.#deliver?.(params.uri);
        }
      }
    } catch (error) {
      if (!listen.abort.signal.aborted) onError(error);
    } finally {
      previous?.abort.abort();
      if (this.#listen === listen) this.#opened();
    }
    if (listen.abort.signal.aborted || this.#listen !== listen) return;
    // It ended on its own (the upstream closed it, or went away): open it again, a bounded number of times in a row.
    if (++this.#failures > maxRetries) {
      onError(new Error(`the bridged session's subscriptions/listen ended ${maxRetries} times in a row; resource updates stop until it subscribes again`));
      return;
    }
    this.#retry = setTimeout(() => this.#listen === listen && this.#reopen(), retryPauseMs * 2 ** (this.#failures - 1));
  }
}

/**
 * The transport of a bridged upstream session, around the stateless one: resources/subscribe and
 * resources/unsubscribe are answered here (`{}`) and change the session's listen; the updates of
 * that listen arrive as the upstream's `notifications/resources/updated`, relayed to the session
 * only for a resource it may see (upstream-relay.ts).
 */
export class SubscribingTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #inner: Transport;
  readonly #subscriptions: BridgedSubscriptions;
  readonly #shows: (uri: string) => boolean;
  readonly #deliver = (uri: string) => this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });

  constructor(inner: Transport, subscriptions: BridgedSubscriptions, shows: (uri: string) => boolean) {
    this.#inner = inner;
    this.#subscriptions = subscriptions;
    this.#shows = shows;
  }

  // The v1 Client skips initialize on a transport with a session id: the stateless one has one.
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message) => this.onmessage?.(message);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => this.onclose?.();
    await this.#inner.start();
    this.#subscriptions.deliverTo(this.#deliver, this.#shows);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('method' in message && 'id' in message && (message.method === 'resources/subscribe' || message.method === 'resources/unsubscribe')) {
      const uri = message.params?.['uri'];
      if (typeof uri === 'string') this.#subscriptions.change(message.method, uri);
      const answer: JSONRPCMessage =
        typeof uri === 'string'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${message.method} needs a uri` } };
      // Answered after send returns, as an answer from the upstream would be.
      queueMicrotask(() => this.onmessage?.(answer));
      return;
    }
    await this.#inner.send(message);
  }

  async close(): Promise<void> {
    if (this.#subscriptions.isDeliveringTo(this.#deliver)) this.#subscriptions.deliverTo(undefined);
    await this.#inner.close();
  }
}

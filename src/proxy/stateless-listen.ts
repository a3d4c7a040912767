// `subscriptions/listen` through `mcp-gate proxy` (2026-07-28): the listen request is opened
// upstream, and its change stream is relayed to the downstream listener only as far as the
// listener's own context (its envelope, headers, endpoint and token) may see:
//  - resources/updated only for a URI it subscribed to that it may read now;
//  - <list>/list_changed only when its filtered view of that list changed, whether the upstream's
//    list changed or the policy did;
//  - a URI it may not read goes upstream as a probe no upstream has, and the answer names the URI
//    again: hidden ≡ unknown, and nothing naming a hidden resource is sent upstream.
// Anything else on the stream (other notifications, requests) is not relayed: fail closed.
import type { RequestContextInput } from '../core/context.js';
import type { ListKind } from '../adapter/list-changes.js';
import type { WireConnection } from '../wire/wire-connection.js';
import type { StatelessConnections } from './stateless-connections.js';
import { gatedRequest, isRecord, listChangedKeys } from './stateless-listen-filter.js';
import type { ListenSink } from './stateless-listen-sinks.js';
import { openUpstreamListen, subscriptionIdMetaKey, type ListenUpstream, type UpstreamMessage } from './stateless-listen-upstream.js';
import { envelopeMetaOf, type EnvelopeMeta } from './stateless-upstream.js';

/** How long the upstream may take to answer a listen request and acknowledge it. */
export const defaultListenAckTimeoutMs = 30_000;
/** A comment on an idle stream this often keeps intermediaries from closing it (the v2 SDK server's own interval). */
export const defaultListenKeepAliveMs = 15_000;
/** Listen streams open at once through one proxy (the v2 SDK server's own limit per handler). */
export const defaultMaxListeners = 1024;

export interface StatelessListenersOptions {
  readonly connections: StatelessConnections;
  /** Where listen requests are opened: the upstream URL, or a spawned upstream. */
  readonly upstream: ListenUpstream;
  readonly onError: (error: unknown) => void;
  readonly ackTimeoutMs?: number | undefined;
  readonly keepAliveMs?: number | undefined;
  readonly maxListeners?: number | undefined;
}

const listsByMethod: Readonly<Record<string, ListKind>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** The open listen streams of one proxy: each is ended when the proxy closes. */
export class StatelessListeners {
  readonly #options: StatelessListenersOptions;
  readonly #open = new Set<AbortController>();

  constructor(options: StatelessListenersOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#open.size;
  }

  /**
   * Serves one listen request until either side ends it, writing to `sink` (an HTTP response, or
   * stdio lines). `'unavailable'` when the upstream could not be asked (the caller answers as for
   * any request then); otherwise the answer has been written.
   */
  async serve(
    sink: ListenSink,
    request: { readonly id: string | number; readonly params: Record<string, unknown> | undefined },
    input: RequestContextInput,
    headers: Readonly<Record<string, string>>,
  ): Promise<'unavailable' | undefined> {
    if (this.#open.size >= (this.#options.maxListeners ?? defaultMaxListeners)) {
      // Each costs an upstream stream and lists of its own: refused beyond the bound, in the v2 SDK server's words.
      sink.answer({ jsonrpc: '2.0', error: { code: -32603, message: 'Subscription limit reached' }, id: request.id }, 200);
      return undefined;
    }
    const closed = new AbortController();
    if (sink.gone.aborted) closed.abort();
    else sink.gone.addEventListener('abort', () => closed.abort(), { once: true });
    this.#open.add(closed);
    const envelope = envelopeMetaOf(request.params?.['_meta']);
    let relay: ListenRelay | undefined;
    let listener: WireConnection | undefined;
    try {
      listener = await this.#options.connections.openListener(envelope, headers, {
        notify: async (list) => relay?.listChanged(list),
        isOpen: () => !closed.signal.aborted,
      });
      // Closed at once when the listener goes, so a refresh under way does not hold the stream open.
      const opened = listener;
      closed.signal.addEventListener('abort', () => void opened.client.close().catch(() => undefined), { once: true });
      // Its one request: each URI it subscribes to is decided (and recorded) as a read of it is, and from now on
      // the gate decides this listener's lists on its context (and tells it of policy changes).
      const visible = await listener.visibleUris({ method: 'subscriptions/listen', id: request.id, params: request.params }, input, subscribedUris(request.params));
      const upstreamRequest = gatedRequest(request, envelope, (uri) => visible.has(uri));
      const ackTimeoutMs = this.#options.ackTimeoutMs ?? defaultListenAckTimeoutMs;
      const { upstream } = this.#options;
      const answer =
        upstream instanceof URL
          ? await openUpstreamListen(upstream, headers, upstreamRequest, closed.signal, ackTimeoutMs)
          : await upstream.openListen(upstreamRequest, closed.signal, ackTimeoutMs);
      if (closed.signal.aborted) return undefined;
      if (answer === undefined) return 'unavailable';
      if (answer.kind === 'answer') {
        sink.answer(upstreamRequest.named(answer.message), answer.status);
        return undefined;
      }
      relay = new ListenRelay(sink, request.id, upstreamRequest.named, this.#options.keepAliveMs ?? defaultListenKeepAliveMs);
      // An upstream that opens the stream but never acknowledges it does not hold the listener forever.
      const ackTimer = setTimeout(() => relay?.acknowledged || answer.close(), this.#options.ackTimeoutMs ?? defaultListenAckTimeoutMs);
      try {
        for await (const message of answer.messages) {
          const ended = await this.#relay(relay, listener, upstreamRequest.relayedUris, message, envelope, headers);
          if (ended) break;
        }
      } finally {
        clearTimeout(ackTimer);
        answer.close();
        relay.end();
      }
      return undefined;
    } catch (error) {
      if (closed.signal.aborted) return undefined;
      this.#options.onError(error);
      return relay === undefined ? 'unavailable' : undefined;
    } finally {
      this.#open.delete(closed);
      closed.abort(); // the gate stops telling this listener of policy changes
      await listener?.client.close().catch(() => undefined);
    }
  }

  /** Relays one upstream message as far as the listener may see it; true when it ended the subscription. */
  async #relay(
    relay: ListenRelay,
    listener: WireConnection,
    relayedUris: ReadonlySet<string>,
    message: UpstreamMessage,
    envelope: EnvelopeMeta,
    headers: Readonly<Record<string, string>>,
  ): Promise<boolean> {
    const method = message['method'];
    if (!('method' in message)) {
      // The answer to the listen request (a graceful close, or an error) ends it; any other id is not ours.
      if (message['id'] !== relay.id) return false;
      relay.send(message);
      return true;
    }
    const params = message['params'] as Record<string, unknown> | undefined;
    if ('id' in message || typeof method !== 'string') return false; // no server→client requests in 2026-07-28
    if (method === 'notifications/subscriptions/acknowledged') {
      if (!relay.acknowledged) relay.acknowledge(message);
      return false;
    }
    if (!relay.acknowledged) return false;
    if (listsByMethod[method] !== undefined) {
      // The envelope's cached lists are stale now, and this listener's view may have changed: read them again, compare, tell.
      void this.#options.connections.refresh(envelope, headers).catch(this.#options.onError);
      // (A refresh cut short by the listener leaving is no fault to report.)
      await listener.refresh().catch((error: unknown) => listener.isOpen() && this.#options.onError(error));
      return false;
    }
    if (method === 'notifications/resources/updated') {
      const uri = params?.['uri'];
      if (typeof uri === 'string' && relayedUris.has(uri) && relay.honors(uri) && listener.showsResource(uri)) relay.send(message);
    }
    return false;
  }

  /** Ends every open listen stream (the proxy is closing). */
  close(): void {
    for (const closed of this.#open) closed.abort();
  }
}

/**
 * The downstream side of one open listen stream: what the listener may get of it, stamped with its
 * subscription id, and a keep-alive while it is idle; its sink writes it.
 */
class ListenRelay {
  readonly id: string | number;
  #honored: Record<string, unknown> = {};
  #acknowledged = false;
  readonly #sink: ListenSink;
  readonly #named: (message: UpstreamMessage) => UpstreamMessage;
  readonly #keepAlive: NodeJS.Timeout;

  constructor(sink: ListenSink, id: string | number, named: (message: UpstreamMessage) => UpstreamMessage, keepAliveMs: number) {
    this.#sink = sink;
    this.id = id;
    this.#named = named;
    sink.open();
    this.#keepAlive = setInterval(() => sink.keepAlive(), keepAliveMs);
  }

  get acknowledged(): boolean {
    return this.#acknowledged;
  }

  /** The upstream's acknowledgement: what it agreed to send is what the listener may get (list kinds included). */
  acknowledge(message: UpstreamMessage): void {
    const named = this.#stamped(this.#named(message));
    const honored = (named['params'] as { notifications?: unknown } | undefined)?.notifications;
    this.#honored = isRecord(honored) ? honored : {};
    this.#acknowledged = true;
    this.#sink.send(named);
  }

  /** Whether the upstream agreed to send resources/updated for this URI. */
  honors(uri: string): boolean {
    const uris = this.#honored['resourceSubscriptions'];
    return Array.isArray(uris) && uris.includes(uri);
  }

  /** list_changed for one list whose visible part changed for this listener, if it asked for (and was granted) that kind. */
  listChanged(list: ListKind): void {
    if (!this.#acknowledged || this.#honored[listChangedKeys[list]] !== true) return;
    this.#sink.send({ jsonrpc: '2.0', method: `notifications/${list}/list_changed`, params: { _meta: { [subscriptionIdMetaKey]: this.id } } });
  }

  send(message: UpstreamMessage): void {
    this.#sink.send(this.#stamped(this.#named(message)));
  }

  /**
   * The message with this listener's subscription id in its `_meta` (a notification's params, or
   * the closing answer's result), where the spec wants it: the upstream's own stamp is the same id
   * for a conforming upstream, and is kept in its place; one that stamped another is corrected.
   */
  #stamped(message: UpstreamMessage): UpstreamMessage {
    if ('error' in message) return message;
    const field = 'method' in message ? 'params' : 'result';
    const body = message[field];
    if (body !== undefined && !isRecord(body)) return message;
    const meta = isRecord(body?.['_meta']) ? body['_meta'] : {};
    return { ...message, [field]: { ...body, _meta: { ...meta, [subscriptionIdMetaKey]: this.id } } };
  }

  end(): void {
    clearInterval(this.#keepAlive);
    this.#sink.end();
  }
}

/** The URIs a listen request subscribes to (its filter's `resourceSubscriptions`); any other string in the filter is hidden by default. */
function subscribedUris(params: Record<string, unknown> | undefined): string[] {
  const filter = params?.['notifications'];
  const uris = isRecord(filter) ? filter['resourceSubscriptions'] : undefined;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [];
}

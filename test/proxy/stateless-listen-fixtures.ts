// Shared parts of the `subscriptions/listen` tests: a recording 2026-07-28 upstream whose lists a
// test can change, listeners on real v2 clients, and a raw listen over fetch for byte comparisons.
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHttpV2 } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryServerEventBus, type McpServer } from '@modelcontextprotocol/server';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey } from '../../src/adapter/envelope.js';
import { createServer } from '../server/fixtures.js';
import { listen, modernVersion, type Endpoint } from '../server/http.js';
import { waitFor } from './harness.js';

/** What a listen-capable upstream declares: every list announces changes, resources can be subscribed to. */
export const listenCapabilities = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true } };

export interface RecordingUpstream {
  readonly endpoint: Endpoint;
  readonly handler: ReturnType<typeof createMcpHandler>;
  /** The upstream's change-event bus: one listener per open listen stream. */
  readonly bus: InMemoryServerEventBus;
  /** Every JSON-RPC request the upstream received, with its headers. */
  readonly received: { readonly body: Record<string, unknown> & { method?: string }; readonly headers: Headers }[];
  /** Ends every open listen stream abruptly (as a dropped connection): no answer, the stream just stops. */
  dropListenStreams(): void;
  /** While down, every request is answered as a load balancer in front of a crashed server would (502, no JSON-RPC). */
  down: boolean;
  /** While set, a listen request gets an event stream on which nothing but a comment is ever written (no acknowledgement). */
  silentListens: boolean;
  close(): Promise<void>;
}

/** A `@modelcontextprotocol/server` 2.4 upstream on 127.0.0.1; `register` adds to the fixture's registry on every request. */
export async function startRecordingUpstream(register: (server: McpServer) => void = () => undefined): Promise<RecordingUpstream> {
  const bus = new InMemoryServerEventBus();
  const handler = createMcpHandler(
    () => {
      const server = createServer({}, { capabilities: listenCapabilities });
      register(server);
      return server;
    },
    { bus },
  );
  const received: RecordingUpstream['received'][number][] = [];
  const streams = new Set<TransformStreamDefaultController<Uint8Array>>();
  const state = { down: false, silentListens: false };
  const endpoint = await listen(async (request) => {
    if (state.down) return new Response('upstream unavailable', { status: 502 });
    const text = await request.clone().text();
    const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (text !== '') received.push({ body, headers: request.headers });
    if (state.silentListens && body['method'] === 'subscriptions/listen') {
      // A comment, so the stream's headers go out; then nothing.
      const silent = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode(': open\n\n')) });
      return new Response(silent, { headers: { 'content-type': 'text/event-stream' } });
    }
    const response = await handler.fetch(request);
    if (body['method'] !== 'subscriptions/listen' || response.body === null) return response;
    // The listen stream through a pass-through the test can break.
    let controller!: TransformStreamDefaultController<Uint8Array>;
    const relay = new TransformStream<Uint8Array, Uint8Array>({ start: (started) => void (controller = started) });
    streams.add(controller);
    void response.body.pipeTo(relay.writable).catch(() => undefined);
    return new Response(relay.readable, { status: response.status, headers: response.headers });
  });
  return {
    endpoint,
    handler,
    bus,
    received,
    get down() {
      return state.down;
    },
    set down(down: boolean) {
      state.down = down;
    },
    get silentListens() {
      return state.silentListens;
    },
    set silentListens(silent: boolean) {
      state.silentListens = silent;
    },
    dropListenStreams() {
      for (const controller of streams) controller.error(new Error('connection dropped'));
      streams.clear();
    },
    close: () => endpoint.close(),
  };
}

export interface Listener {
  readonly client: ClientV2;
  /** The notifications delivered to the client's handlers, in order: list_changed as the list's method, resources/updated as its URI. */
  readonly seen: string[];
  readonly subscription: Awaited<ReturnType<ClientV2['listen']>>;
  close(): Promise<void>;
}

/** A v2 client pinned to 2026-07-28 with one `subscriptions/listen` open through `url`. */
export function openListener(url: URL, name: string, filter: Parameters<ClientV2['listen']>[0], headers: Record<string, string> = {}): Promise<Listener> {
  return openListenerOver(new StreamableHttpV2(url, { requestInit: { headers } }), name, filter);
}

/** A v2 client pinned to 2026-07-28 with one `subscriptions/listen` open over `transport` (HTTP, or a stdio pair). */
export async function openListenerOver(transport: Parameters<ClientV2['connect']>[0], name: string, filter: Parameters<ClientV2['listen']>[0]): Promise<Listener> {
  const client = new ClientV2({ name, version: '2.0.0' }, { versionNegotiation: { mode: { pin: modernVersion } }, capabilities: {} });
  await client.connect(transport);
  const seen: string[] = [];
  for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed'] as const) {
    client.setNotificationHandler(method, () => void seen.push(method));
  }
  client.setNotificationHandler('notifications/resources/updated', (notification) => void seen.push(notification.params.uri));
  const subscription = await client.listen(filter, { timeout: 10_000 });
  return {
    client,
    seen,
    subscription,
    async close() {
      await subscription.close();
      await client.close();
    },
  };
}

/** Waits until `listener` has seen `count` notifications (bounded), and returns them. */
export function seenBy(listener: Listener, count: number): Promise<string[]> {
  return waitFor(`${count} notifications (seen: ${JSON.stringify(listener.seen)})`, () => (listener.seen.length >= count ? [...listener.seen] : undefined), 10_000);
}

/** How the listener's subscription closed (`remote`, `local`, `graceful`), or `still open` after 10 s. */
export function closedCause(listener: Listener): Promise<unknown> {
  return Promise.race([listener.subscription.closed, new Promise((resolve) => setTimeout(resolve, 10_000, 'still open').unref())]);
}

export interface RawListen {
  readonly status: number;
  readonly headers: Headers;
  /** The body when it is no event stream; else the first event, as written. */
  readonly text: string;
}

/**
 * One listen request over fetch, read as far as its first event (then closed): what a client
 * sees on the wire, for byte-for-byte comparisons. `capabilities: null` leaves the key out.
 */
export async function rawListen(
  endpoint: Endpoint,
  notifications: unknown,
  options: { headers?: Record<string, string>; capabilities?: Record<string, unknown> | null } = {},
): Promise<RawListen> {
  const meta: Record<string, unknown> = { [protocolVersionMetaKey]: modernVersion, [clientInfoMetaKey]: { name: 'raw-listener', version: '1.0.0' } };
  if (options.capabilities !== null) meta[clientCapabilitiesMetaKey] = options.capabilities ?? {};
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  try {
    const response = await fetch(`${endpoint.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': modernVersion,
        'mcp-method': 'subscriptions/listen',
        ...options.headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { notifications, _meta: meta } }),
      signal: abort.signal,
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return { status: response.status, headers: response.headers, text: await response.text() };
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    return { status: response.status, headers: response.headers, text: text.slice(0, text.indexOf('\n\n') + 2) };
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { StoredHandler as AnyStoredHandler } from '../adapter/gated-request.js';
import { RelayedError } from '../wire/relayed-error.js';

export type ServerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A handler as the low-level Server stores it: the raw JSON-RPC request and the SDK's `extra` in, result out. */
export type StoredHandler = AnyStoredHandler<ServerExtra>;

type NotificationListener = (notification: { method: string; params?: unknown }) => void;

/**
 * The upstream the wire binding talks to when the server is in this process: its "requests" are
 * answered by the framework's own handlers, called as the SDK's Protocol calls them, with the
 * `extra` of the downstream request they serve (so a visible tool sees its caller's auth,
 * headers, session, cancellation and progress token). The wire binding uses only `request` and
 * `setNotificationHandler` of its Client (src/wire/upstream.ts, progress-relay.ts,
 * wire-connection.ts), which is what this implements.
 */
export class InProcessUpstream {
  readonly #server: Server;
  readonly #handlerOf: (method: string) => StoredHandler | undefined;
  /** The downstream request each signal belongs to: forwardRequest hands the gate's signal on, and with it this request's extra. */
  readonly #extras = new WeakMap<AbortSignal, ServerExtra>();
  readonly #listeners = new Map<string, NotificationListener>();
  #ownRequests = 0;

  constructor(server: Server, handlerOf: (method: string) => StoredHandler | undefined) {
    this.#server = server;
    this.#handlerOf = handlerOf;
  }

  /** Makes requests sent with `extra.signal` run the framework's handlers with `extra`. */
  serve(extra: ServerExtra): void {
    this.#extras.set(extra.signal, extra);
  }

  /**
   * Calls the framework's handler for the method. Whatever it throws becomes the JSON-RPC error
   * the SDK's Protocol would have sent for it (`code` when it is a safe integer, else -32603;
   * `message`, else "Internal error"; `data` when defined), unprefixed, so that relaying it
   * sends the same bytes. A method without a handler is the Protocol's own "Method not found".
   */
  async request(request: { method: string; params?: Record<string, unknown> }, _resultSchema: unknown, options?: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    const handler = this.#handlerOf(request.method);
    if (handler === undefined) throw new RelayedError(-32601, 'Method not found');
    const extra = (options?.signal === undefined ? undefined : this.#extras.get(options.signal)) ?? this.#ownExtra();
    const message = { jsonrpc: '2.0', id: extra.requestId, method: request.method, ...(request.params === undefined ? {} : { params: request.params }) };
    try {
      return (await handler(message, extra)) as Record<string, unknown>;
    } catch (error) {
      throw asProtocolError(error);
    }
  }

  setNotificationHandler(schema: { shape?: { method?: { value?: unknown } } }, listener: NotificationListener): void {
    const method = schema.shape?.method?.value;
    if (typeof method !== 'string') throw new TypeError('mcp-gate/lowlevel: a notification schema without a method literal');
    this.#listeners.set(method, listener);
  }

  /** Hands a notification the server sent (list_changed) to the wire binding instead of the client. */
  deliver(notification: { method: string; params?: unknown }): void {
    this.#listeners.get(notification.method)?.(notification);
  }

  /**
   * The extra of a request the gate makes itself (reading the whole lists when a session starts
   * and after list_changed): no caller, never aborted; notifications and requests go to the
   * session's client as the server's own.
   */
  #ownExtra(): ServerExtra {
    const server = this.#server;
    return {
      signal: new AbortController().signal,
      requestId: `mcp-gate-${++this.#ownRequests}`,
      sessionId: server.transport?.sessionId,
      sendNotification: (notification) => server.notification(notification),
      sendRequest: (request, schema, options) => server.request(request, schema, options),
    };
  }
}

function asProtocolError(error: unknown): RelayedError {
  const fields = error !== null && typeof error === 'object' ? (error as { code?: unknown; message?: unknown; data?: unknown }) : {};
  const code = typeof fields.code === 'number' && Number.isSafeInteger(fields.code) ? fields.code : -32603;
  const message = fields.message ?? 'Internal error';
  return new RelayedError(code, message as string, fields.data);
}

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { PolicyOptionError } from '../core/errors.js';
import type { JsonRpcRequest } from '../adapter/gated-request.js';
import { gatedMethods as adapterGatedMethods } from '../adapter/server-hooks.js';
import type { ServerExtra, StoredHandler } from './in-process-upstream.js';

/**
 * Every method that lists or names a primitive: what the wire binding decides. Anything else
 * stays the framework's. The in-process adapters' list, plus subscriptions, which the SDK's
 * McpServer leaves to the server author but a low-level Server's framework answers itself.
 */
export const gatedMethods: ReadonlySet<string> = new Set([...adapterGatedMethods, 'resources/subscribe', 'resources/unsubscribe']);

/** How the gated methods are answered: by the gate, or by the framework's own handler (a FastMCP session nobody gated). */
export type Dispatch = (method: string, request: JsonRpcRequest, extra: ServerExtra) => Promise<unknown>;

const takeovers = new WeakMap<Server, HandlerTakeover>();

/**
 * Owns the gated entries of a low-level Server's method → handler map, whenever they are set.
 * The framework's handlers are kept aside (`handlerOf`) and the map holds one front per method
 * that the SDK's Protocol dispatches to. Setting a handler later (fastmcp replaces its list and
 * call handlers on every addTool) replaces the one kept aside, never the front, through the
 * map's own `set` and `delete`, which every path that installs a handler goes through
 * (`setRequestHandler`, Server's tools/call wrapper, direct writes). A removed handler removes
 * the front too, so the SDK answers "Method not found" itself.
 *
 * Until a dispatch is chosen, requests wait: a FastMCP session's requests can arrive before the
 * FastMCP says which instance the session belongs to (fastmcp.ts).
 */
export class HandlerTakeover {
  readonly server: Server;
  readonly #handlers = new Map<string, StoredHandler>();
  readonly #onChange: Set<(method: string) => void> = new Set();
  #dispatch: Dispatch | undefined;
  /** The HTTP request a transport gave with a JSON-RPC request, where the SDK's Protocol drops it (fastmcp.ts). */
  transportRequest: ((id: unknown) => unknown) | undefined;
  #waiting: (() => void)[] = [];

  private constructor(server: Server) {
    this.server = server;
    const table = handlerTableOf(server);
    const set = table.set;
    const remove = table.delete;
    const fronts = new Map<string, StoredHandler>();
    const frontOf = (method: string): StoredHandler => {
      let front = fronts.get(method);
      if (front === undefined) fronts.set(method, (front = (request, extra) => this.#answer(method, request, extra)));
      return front;
    };
    for (const [method, handler] of table) {
      if (!gatedMethods.has(method)) continue;
      this.#handlers.set(method, handler);
      set.call(table, method, frontOf(method));
    }
    const changed = (method: string) => {
      for (const listener of this.#onChange) listener(method);
    };
    table.set = (method: string, handler: StoredHandler) => {
      if (!gatedMethods.has(method)) return set.call(table, method, handler);
      this.#handlers.set(method, handler);
      set.call(table, method, frontOf(method));
      changed(method);
      return table;
    };
    table.delete = (method: string) => {
      if (gatedMethods.has(method) && this.#handlers.delete(method)) changed(method);
      return remove.call(table, method);
    };
  }

  /** The server's takeover, made on first use. */
  static of(server: Server): HandlerTakeover {
    let takeover = takeovers.get(server);
    if (takeover === undefined) takeovers.set(server, (takeover = new HandlerTakeover(server)));
    return takeover;
  }

  static existing(server: Server): HandlerTakeover | undefined {
    return takeovers.get(server);
  }

  /** The framework's handler for a method, as it set it last. */
  handlerOf(method: string): StoredHandler | undefined {
    return this.#handlers.get(method);
  }

  /** Called after the framework set or removed a gated handler. */
  onHandlerChange(listener: (method: string) => void): void {
    this.#onChange.add(listener);
  }

  get decided(): boolean {
    return this.#dispatch !== undefined;
  }

  /** Chooses how gated methods are answered, once; requests waiting for it go on in arrival order. */
  decide(dispatch: Dispatch): void {
    if (this.#dispatch !== undefined) throw new PolicyOptionError('mcp-gate/lowlevel: this Server is already gated');
    this.#dispatch = dispatch;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resume of waiting) resume();
  }

  /** The framework's own handler, as if nothing stood in front of it. */
  readonly passThrough: Dispatch = (method, request, extra) => {
    const handler = this.#handlers.get(method);
    // The front exists only while a handler does (delete removes both); a race with a removal answers as the SDK does.
    if (handler === undefined) return Promise.reject(Object.assign(new Error('Method not found'), { code: -32601 }));
    return handler(request, extra);
  };

  async #answer(method: string, request: JsonRpcRequest, extra: ServerExtra): Promise<unknown> {
    if (this.#dispatch === undefined) await new Promise<void>((resume) => this.#waiting.push(resume));
    return this.#dispatch!(method, request, extra);
  }
}

/** The protocol's method → handler map (private in the SDK's types; checked here so a renamed field fails at install). */
function handlerTableOf(server: Server): Map<string, StoredHandler> {
  const table = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(table instanceof Map)) {
    throw new PolicyOptionError('mcp-gate/lowlevel: this is not a low-level Server of @modelcontextprotocol/sdk 1.x (it has no request handler map)');
  }
  return table as Map<string, StoredHandler>;
}

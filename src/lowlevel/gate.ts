import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import { PolicyOptionError } from '../core/errors.js';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import type { Overlay } from '../wire/overlay.js';
import type { WireConnection } from '../wire/wire-connection.js';
import { createWireGate, type WireGate, type WireGateOptions } from '../wire/wire-gate.js';
import { HandlerTakeover } from './handler-takeover.js';
import { InProcessUpstream } from './in-process-upstream.js';
import { contextInputOf } from './request-input.js';

/**
 * Options of a gate for a low-level Server: those of every mcp-gate binding (`policy`,
 * `onDecision`, `onError`, `pageSize`, …), with an `overlay` in place of `metadata` (the gate
 * reads no registry: annotations come from each primitive's `_meta['mcp-gate']` in the
 * server's list results, else from the overlay). Hidden is always answered as unknown.
 */
export type GateOptions = WireGateOptions;

/** A policy in front of one or more low-level Servers (one per session). */
export interface Gate {
  /** The policy in force. */
  readonly policy: Policy;
  /** The compiled overlay. */
  readonly overlay: Overlay;
  /** Swaps the policy for every gated server; resolves once list_changed went to each session whose visible lists changed. */
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  /** Gates one more Server under this gate's policy: before it is connected, before or after its handlers are set. */
  install(server: Server): void;
}

interface GateInternals {
  /** Gates a server whose handlers are already taken over, connected or not (fastmcp.ts holds its requests until then). */
  readonly gateTakeover: (takeover: HandlerTakeover, rewriteError?: ErrorRewrite) => void;
  readonly reportError: (error: Error) => void;
}

const internalsOfGates = new WeakMap<Gate, GateInternals>();

/** What fastmcp.ts needs of a gate made here. */
export function internalsOf(gate: Gate): GateInternals {
  const internals = internalsOfGates.get(gate);
  if (internals === undefined) throw new PolicyOptionError('mcp-gate/lowlevel: not a gate made by mcp-gate/lowlevel createGate()');
  return internals;
}

/** Creates a gate without installing it; `install` it on each Server it should guard. */
export function createGate(options: GateOptions): Gate {
  const wire = createWireGate(options);
  const created: Gate = {
    get policy() {
      return wire.policy;
    },
    overlay: wire.overlay,
    setPolicy: (next) => wire.setPolicy(next),
    install(server) {
      if (HandlerTakeover.existing(server)?.decided) throw new PolicyOptionError('mcp-gate/lowlevel: this Server is already gated');
      if (server.transport !== undefined) {
        throw new PolicyOptionError('mcp-gate/lowlevel: gate the Server before connect(): a request it answered before would not have been gated');
      }
      gateHandlers(HandlerTakeover.of(server), wire, options.onError);
    },
  };
  internalsOfGates.set(created, {
    gateTakeover: (takeover, rewriteError) => gateHandlers(takeover, wire, options.onError, rewriteError),
    reportError: (error) => options.onError?.(error),
  });
  return created;
}

/**
 * Puts a policy in front of a low-level Server of @modelcontextprotocol/sdk 1.x: lists show
 * only what the request may use, and calls, gets, reads, subscriptions and completions of
 * anything else are answered exactly as the same server answers a name it never registered.
 * Call it before `server.connect()`; handlers may be set before or after.
 */
export function gate(server: Server, options: GateOptions | Gate): Gate {
  const installed = isGate(options) ? options : createGate(options);
  installed.install(server);
  return installed;
}

export function isGate(value: GateOptions | Gate): value is Gate {
  return typeof (value as Gate).install === 'function' && typeof (value as Gate).setPolicy === 'function';
}

const listChangedMethods: ReadonlySet<string> = new Set(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed']);
const listMethods: ReadonlySet<string> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/**
 * Rewrites the framework's error for a request before it goes to the client, for a framework
 * whose errors name primitives the caller may not see. `visibleKeys` gives this caller's.
 */
export type ErrorRewrite = (
  method: string,
  params: Record<string, unknown> | undefined,
  error: unknown,
  visibleKeys: (kind: PrimitiveKind) => Promise<string[]>,
) => Promise<unknown>;

/**
 * Answers the server's gated methods through the wire binding, the framework's handlers
 * standing in for the upstream. The session's lists are read on its first gated request (so
 * handlers set after `gate()` are there), and again when the server says a list changed or a
 * list handler is replaced; the server's own list_changed goes to the client only when the
 * list it sees changed, and `resources/updated` only for resources it may see (as the proxy).
 */
export function gateHandlers(takeover: HandlerTakeover, wire: WireGate, onError: ((error: Error) => void) | undefined, rewriteError?: ErrorRewrite): void {
  const server = takeover.server;
  const upstream = new InProcessUpstream(server, (method) => takeover.handlerOf(method));
  const send = server.notification.bind(server);
  const report = (error: unknown) => onError?.(error instanceof Error ? error : new Error(String(error)));
  let attaching: Promise<WireConnection> | undefined;
  let connection: WireConnection | undefined;
  // The wire binding's only use of its Client is `request` and `setNotificationHandler` (see InProcessUpstream).
  const attach = () =>
    (attaching ??= wire
      .attach(upstream as unknown as Client, {
        notify: (list) => send({ method: `notifications/${list}/list_changed` }),
        isOpen: () => server.transport !== undefined,
      })
      .then(
        (attached) => (connection = attached),
        (error: unknown) => {
          // Reading the lists failed (a list handler broke): this request fails, the next one reads them again.
          attaching = undefined;
          throw error;
        },
      ));

  server.notification = function notifyThroughGate(notification, options) {
    if (listChangedMethods.has(notification.method)) {
      upstream.deliver(notification);
      return Promise.resolve();
    }
    if (notification.method === 'notifications/resources/updated') {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri !== 'string' || connection?.showsResource(uri) !== true) return Promise.resolve();
    }
    return send(notification, options);
  };
  takeover.onHandlerChange((method) => {
    if (listMethods.has(method)) connection?.refresh().catch(report);
  });
  takeover.decide(async function answerGated(method, request, extra) {
    const live = await attach();
    upstream.serve(extra);
    const input = contextInputOf(method, extra, server, takeover.transportRequest);
    try {
      return await live.handle({ method, params: request.params, id: extra.requestId }, input, { signal: extra.signal });
    } catch (error) {
      throw rewriteError === undefined ? error : await rewriteError(method, request.params, error, (kind) => live.visibleKeys(kind, input));
    }
  });
}

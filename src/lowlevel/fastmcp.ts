import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { PolicyOptionError } from '../core/errors.js';
import { RelayedError } from '../wire/relayed-error.js';
import { createGate, internalsOf, isGate, type ErrorRewrite, type Gate, type GateOptions } from './gate.js';
import { gatedMethods, HandlerTakeover } from './handler-takeover.js';

/** A FastMCP of fastmcp 4.x (checked at run time: `instanceof` the FastMCP mcp-gate resolves). */
export interface FastMCPInstance {
  on(...args: never[]): unknown;
  readonly sessions: readonly unknown[];
  start(...args: never[]): Promise<void>;
}

/** What mcp-gate uses of a FastMCP: its `connect` event, its sessions and `start`. */
interface FastMCPParts {
  on(event: 'connect', listener: (event: { session: FastMCPSessionInstance }) => void): unknown;
  readonly sessions: readonly unknown[];
  start(options?: unknown): Promise<void>;
}

/** What mcp-gate uses of a FastMCPSession: its low-level Server. */
export interface FastMCPSessionInstance {
  readonly server: Server;
  close(): Promise<void>;
}

interface SessionClass {
  prototype: { connect(this: FastMCPSessionInstance, transport: unknown): Promise<void> };
}

const gatedInstances = new WeakSet<object>();
const heldClasses = new WeakSet<object>();

/**
 * Gates every session of a FastMCP (fastmcp 4.x): each session's low-level Server, with the
 * same policy, per request. Call it before `start()` or `connect()`. Stateless HTTP is refused
 * (fastmcp never announces those sessions, so none could be gated).
 */
export async function gateFastMCP(instance: FastMCPInstance, options: GateOptions | Gate): Promise<Gate> {
  const { FastMCP, FastMCPSession } = await import('fastmcp').catch((error: unknown) => {
    throw new PolicyOptionError('mcp-gate/lowlevel: gateFastMCP needs the fastmcp package, which cannot be loaded; install it with: npm install "fastmcp@^4.20.0"', {
      cause: error,
    });
  });
  const fastmcp = instance as unknown as FastMCPParts;
  if (!(instance instanceof FastMCP)) {
    throw new PolicyOptionError(
      'mcp-gate/lowlevel: gateFastMCP needs a FastMCP of the fastmcp package mcp-gate resolves (a second copy of fastmcp, or its CommonJS build, makes sessions mcp-gate cannot hold)',
    );
  }
  if (gatedInstances.has(fastmcp)) throw new PolicyOptionError('mcp-gate/lowlevel: this FastMCP is already gated');
  if (fastmcp.sessions.length > 0) throw new PolicyOptionError('mcp-gate/lowlevel: gate the FastMCP before start() or connect(): it already has sessions');
  const gate = isGate(options) ? options : createGate(options);
  const internals = internalsOf(gate);
  holdSessionsOf(FastMCPSession as unknown as SessionClass);
  gatedInstances.add(fastmcp);
  fastmcp.on('connect', ({ session }) => {
    const takeover = HandlerTakeover.existing(session.server);
    if (takeover === undefined || takeover.decided) {
      // Not held until now: it may have answered requests ungated. Fail closed.
      internals.reportError(new PolicyOptionError('mcp-gate/lowlevel: a FastMCP session connected before it could be gated; it was closed'));
      void session.close();
      return;
    }
    internals.gateTakeover(takeover, scrubAvailableResources);
  });
  const start = fastmcp.start;
  fastmcp.start = function startGated(this: FastMCPParts, startOptions?: unknown) {
    if (servesStatelessHttp(startOptions as StartOptions | undefined)) {
      return Promise.reject(
        new PolicyOptionError('mcp-gate/lowlevel: a gated FastMCP cannot serve stateless HTTP: fastmcp announces no session there, so none would be gated'),
      );
    }
    return start.call(this, startOptions);
  };
  return gate;
}

/**
 * FastMCP announces a session (its `connect` event) only once the session is connected: over
 * stdio, legacy SSE and `connect(transport)` that is after the client's `initialize`, so a
 * request sent right after it would reach fastmcp's handlers first. So every FastMCPSession's
 * gated requests wait from the moment it starts connecting until its FastMCP announced it: a
 * gated FastMCP's `connect` listener gates it then; a session nobody claimed by the time the
 * event loop turns (an ungated FastMCP's) is let through to its own handlers. The hook is on
 * the class, installed once, and changes nothing else.
 */
function holdSessionsOf(sessionClass: SessionClass): void {
  if (heldClasses.has(sessionClass)) return;
  heldClasses.add(sessionClass);
  const connect = sessionClass.prototype.connect;
  sessionClass.prototype.connect = async function connectHeld(this: FastMCPSessionInstance, transport: unknown) {
    const takeover = HandlerTakeover.of(this.server);
    if (transport !== null && typeof transport === 'object') takeover.transportRequest = keepTransportRequests(transport);
    try {
      return await connect.call(this, transport);
    } finally {
      setImmediate(() => {
        if (!takeover.decided) takeover.decide(takeover.passThrough);
      });
    }
  };
}

/** At most this many requests' HTTP requests are kept waiting to be read (a gated request reads its own once). */
const maxKeptRequests = 1_000;

/**
 * fastmcp 4.20 serves HTTP through mcp-proxy 6.7, whose transport is the v2 SDK's: it hands each
 * message with `{ request }` (the fetch Request), and the v1 Server's Protocol passes on only
 * `requestInfo`, so no handler sees a header. This keeps the Request of each gated JSON-RPC
 * request by id, from the transport's `onmessage`, for the gate's context alone.
 */
function keepTransportRequests(transport: object): (id: unknown) => unknown {
  const kept = new Map<unknown, unknown>();
  let deliver: ((message: unknown, info?: unknown) => void) | undefined;
  const keepAndDeliver = (message: unknown, info?: unknown) => {
    const request = (info as { request?: unknown } | undefined)?.request;
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    if (request !== undefined && id !== undefined && typeof method === 'string' && gatedMethods.has(method)) {
      if (kept.size >= maxKeptRequests) kept.delete(kept.keys().next().value);
      kept.set(id, request);
    }
    deliver?.(message, info);
  };
  // The transport's own `onmessage` may be an accessor (mcp-proxy's Node transport forwards it to the web-standard one): keep using it.
  let descriptor: PropertyDescriptor | undefined;
  for (let owner: object | null = transport; owner !== null && descriptor === undefined; owner = Object.getPrototypeOf(owner) as object | null) {
    descriptor = Object.getOwnPropertyDescriptor(owner, 'onmessage');
  }
  let stored: unknown = descriptor?.value;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (descriptor?.get ? descriptor.get.call(transport) : stored),
    set: (handler: typeof deliver) => {
      deliver = handler;
      const value = handler === undefined ? undefined : keepAndDeliver;
      if (descriptor?.set) descriptor.set.call(transport, value);
      else stored = value;
    },
  });
  return (id) => {
    const request = kept.get(id);
    kept.delete(id);
    return request;
  };
}

interface StartOptions {
  transportType?: string;
  httpStream?: { stateless?: boolean };
}

/** Whether `start(options)` serves stateless HTTP, resolved as fastmcp 4.20's #parseRuntimeConfig does (options, then argv, then environment). */
function servesStatelessHttp(options: StartOptions | undefined): boolean {
  const args = process.argv.slice(2);
  const argument = (name: string) => {
    const index = args.indexOf(`--${name}`);
    return index !== -1 && index + 1 < args.length ? args[index + 1] : undefined;
  };
  const transportArgument = argument('transport');
  const transportType = options?.transportType || (transportArgument === 'http-stream' ? 'httpStream' : transportArgument) || process.env['FASTMCP_TRANSPORT'] || 'stdio';
  if (transportType !== 'httpStream') return false;
  return Boolean(options?.httpStream?.stateless || argument('stateless') === 'true' || process.env['FASTMCP_STATELESS'] === 'true');
}

/**
 * fastmcp 4.20 answers a read of a URI it serves from no resource or template with every
 * static resource's URI: `Resource not found: 'URI'. Available resources: a, b` — hidden ones
 * too, to any caller, for any unknown URI. The gate puts in their place the URIs this caller
 * may see, in fastmcp's order, so the answer is the one a server without the hidden resources
 * gives (test/lowlevel/fastmcp.test.ts compares the bytes).
 */
const scrubAvailableResources: ErrorRewrite = async (method, params, error, visibleKeys) => {
  const uri = params?.['uri'];
  if (method !== 'resources/read' || typeof uri !== 'string' || !(error instanceof RelayedError)) return error;
  const prefix = `MCP error ${error.code}: Resource not found: '${uri}'. Available resources: `;
  if (!error.message.startsWith(prefix)) return error;
  const visible = await visibleKeys('resource');
  return new RelayedError(error.code, prefix + (visible.join(', ') || 'none'), error.data);
};

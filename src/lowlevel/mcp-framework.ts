import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import { PolicyOptionError } from '../core/errors.js';
import { RelayedError } from '../wire/relayed-error.js';
import { createGate, internalsOf, isGate, type ErrorRewrite, type Gate, type GateOptions } from './gate.js';
import { HandlerTakeover } from './handler-takeover.js';

/** An MCPServer of mcp-framework 0.2.x (checked at run time: `instanceof` the MCPServer mcp-gate resolves). */
export interface McpFrameworkServerInstance {
  start(): Promise<void>;
  handleRequest(request: Request, ...rest: never[]): Promise<Response>;
}

/**
 * What mcp-gate uses of an MCPServer. None of it is public in mcp-framework 0.2.22: it makes a
 * low-level Server per stdio or SSE binding, per SSE session and per `handleRequest` call, and
 * hands none of them out; each one, and only those, passes through `setupHandlers(server)` before
 * it is connected. The fields say whether it was started and which transports it serves.
 */
interface McpFrameworkParts {
  setupHandlers(server: Server): void;
  readonly transportConfigs?: readonly { readonly type?: string }[];
  readonly _initPromise?: unknown;
}

const gatedInstances = new WeakSet<object>();

/**
 * Gates every low-level Server an mcp-framework MCPServer makes, with one policy, per request:
 * over stdio, legacy SSE (a Server per session) and `handleRequest` (a Server per request, the
 * serverless path). Call it before `start()` or the first `handleRequest()`. mcp-framework's
 * `http-stream` transport is refused: it feeds every HTTP session into one Server and drops each
 * message's HTTP request, so a decision would be made with another session's client and no headers.
 */
export async function gateMcpFramework(instance: McpFrameworkServerInstance, options: GateOptions | Gate): Promise<Gate> {
  const { MCPServer } = await import('mcp-framework').catch((error: unknown) => {
    throw new PolicyOptionError(
      'mcp-gate/lowlevel: gateMcpFramework needs the mcp-framework package, which cannot be loaded; install it with: npm install "mcp-framework@^0.2.22"',
      {
        cause: error,
      },
    );
  });
  if (!(instance instanceof MCPServer)) {
    throw new PolicyOptionError(
      'mcp-gate/lowlevel: gateMcpFramework needs an MCPServer of the mcp-framework package mcp-gate resolves (a second copy makes Servers mcp-gate cannot reach)',
    );
  }
  const parts = instance as unknown as McpFrameworkParts;
  if (typeof parts.setupHandlers !== 'function' || !Array.isArray(parts.transportConfigs)) {
    throw new PolicyOptionError('mcp-gate/lowlevel: gateMcpFramework supports mcp-framework 0.2.x: this MCPServer has no setupHandlers(server) to gate its Servers in');
  }
  if (gatedInstances.has(parts)) throw new PolicyOptionError('mcp-gate/lowlevel: this MCPServer is already gated');
  if (parts._initPromise !== undefined) {
    throw new PolicyOptionError('mcp-gate/lowlevel: gate the MCPServer before start() or handleRequest(): it may have answered requests ungated');
  }
  if (parts.transportConfigs.some((config) => config.type === 'http-stream')) {
    throw new PolicyOptionError(
      'mcp-gate/lowlevel: a gated MCPServer cannot serve the http-stream transport: mcp-framework feeds every HTTP session into one Server without its HTTP request, so no request could be decided for its own client; serve HTTP through handleRequest() instead',
    );
  }
  const gate = isGate(options) ? options : createGate(options);
  const internals = internalsOf(gate);
  gatedInstances.add(parts);
  const setupHandlers = parts.setupHandlers;
  parts.setupHandlers = function setupHandlersGated(this: McpFrameworkParts, server: Server) {
    setupHandlers.call(this, server);
    internals.gateTakeover(HandlerTakeover.of(server), scrubAvailableNames);
  };
  return gate;
}

/** The name mcp-framework 0.2.22 gives each kind in its "Unknown …" errors, and the parameter that names it. */
const unknownNames: Readonly<Record<string, { readonly kind: PrimitiveKind; readonly noun: string; readonly param: string }>> = {
  'tools/call': { kind: 'tool', noun: 'tool', param: 'name' },
  'prompts/get': { kind: 'prompt', noun: 'prompt', param: 'name' },
  'resources/read': { kind: 'resource', noun: 'resource', param: 'uri' },
};

/**
 * mcp-framework 0.2.22 answers a call, get or read of a name it does not serve with every name
 * it has: `Unknown tool: NAME. Available tools: a, b` — hidden ones too, to any caller. The gate
 * puts in their place the names this caller may see, in mcp-framework's order, so the answer is
 * the one a server without the hidden primitives gives (test/lowlevel/mcp-framework.test.ts
 * compares the bytes).
 */
const scrubAvailableNames: ErrorRewrite = async (method, params, error, visibleKeys) => {
  const names = unknownNames[method];
  const requested = names === undefined ? undefined : params?.[names.param];
  if (names === undefined || typeof requested !== 'string' || !(error instanceof RelayedError)) return error;
  const prefix = `Unknown ${names.noun}: ${requested}. Available ${names.noun}s: `;
  if (!error.message.startsWith(prefix)) return error;
  return new RelayedError(error.code, prefix + (await visibleKeys(names.kind)).join(', '), error.data);
};

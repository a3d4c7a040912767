import type {
  McpServer,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ScopeChallengeHandler,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { PrimitiveSource } from '../adapter/catalog.js';
import { readRegistrations, type McpServerRegistries } from '../adapter/registry-reader.js';
import type { StoredHandler as AnyStoredHandler } from '../adapter/gated-request.js';
import { checkServerInternals, type SupportedSdk } from '../adapter/server-hooks.js';

/** A handler as the v2 SDK stores it: the raw (envelope-lifted) JSON-RPC request and the context in, result out. */
export type StoredHandler = AnyStoredHandler<ServerContext>;

/**
 * The parts of McpServer 2.4 the gate reads or wraps. They are private or `@internal` in the
 * SDK's types, so this view is checked when the gate is installed: an SDK that renames them
 * fails there, loudly, instead of serving ungated.
 */
export interface McpServerInternals extends McpServerRegistries<RegisteredTool, RegisteredPrompt, RegisteredResource, RegisteredResourceTemplate> {
  /** Consulted by `createMcpHandler` before dispatch for the `Mcp-Param-*` (x-mcp-header) check. */
  toolInputSchemaJson(name: string): Record<string, unknown> | undefined;
  /** Consulted before dispatch by `createMcpHandler` and the session transport for OAuth scope challenges. */
  resolveScopeChallenge: ScopeChallengeHandler;
}

const supported: SupportedSdk = { adapter: 'mcp-gate/server', sdk: '@modelcontextprotocol/server 2.4.x' };

export function readInternals(server: McpServer): McpServerInternals {
  checkServerInternals(server, supported, ['toolInputSchemaJson', 'resolveScopeChallenge']);
  return server as unknown as McpServerInternals;
}

/** Every registration as a PrimitiveSource, in registry order, through the reader all bindings share (2.4 keeps prompts' `_meta`). */
export function readSources(internals: McpServerInternals): Iterable<PrimitiveSource> {
  return readRegistrations(internals);
}

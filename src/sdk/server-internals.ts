import type { McpServer, RegisteredPrompt, RegisteredResource, RegisteredResourceTemplate, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PrimitiveSource } from '../adapter/catalog.js';
import { readRegistrations, type McpServerRegistries } from '../adapter/registry-reader.js';
import type { StoredHandler as AnyStoredHandler } from '../adapter/gated-request.js';
import { checkServerInternals, type SupportedSdk } from '../adapter/server-hooks.js';

export type SdkExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A handler as the SDK stores it: raw JSON-RPC request in, result out (parsing happens inside). */
export type StoredHandler = AnyStoredHandler<SdkExtra>;

/**
 * The parts of McpServer 1.32 the gate reads: its registries. They are private in the SDK's
 * types, so this view is checked at install time (readInternals); a later SDK that renames them
 * fails loudly there.
 */
export type McpServerInternals = McpServerRegistries<RegisteredTool, RegisteredPrompt, RegisteredResource, RegisteredResourceTemplate>;

const supported: SupportedSdk = { adapter: 'mcp-gate/sdk', sdk: '@modelcontextprotocol/sdk 1.32.x' };

export function readInternals(server: McpServer): McpServerInternals {
  checkServerInternals(server, supported);
  return server as unknown as McpServerInternals;
}

/**
 * Every registration as a PrimitiveSource, in registry order, through the reader all bindings
 * share. Prompts' `_meta` comes from `capturedPromptMeta`, because SDK 1.32's registerPrompt
 * drops `config._meta`.
 */
export function readSources(internals: McpServerInternals, capturedPromptMeta: WeakMap<object, unknown>): Iterable<PrimitiveSource> {
  return readRegistrations(internals, { promptMeta: (prompt) => capturedPromptMeta.get(prompt) });
}

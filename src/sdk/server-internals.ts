import type {
  McpServer,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PrimitiveSource } from '../adapter/catalog.js';
import type { StoredHandler as AnyStoredHandler } from '../adapter/gated-request.js';
import { checkServerInternals, handlerMapOf, type SupportedSdk } from '../adapter/server-hooks.js';

export type SdkExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A handler as the SDK stores it: raw JSON-RPC request in, result out (parsing happens inside). */
export type StoredHandler = AnyStoredHandler<SdkExtra>;

/**
 * The parts of McpServer 1.32 the gate reads. They are private in the SDK's types, so this view
 * is checked at install time (readInternals); a later SDK that renames them fails loudly there.
 */
export interface McpServerInternals {
  readonly _registeredTools: Readonly<Record<string, RegisteredTool>>;
  readonly _registeredPrompts: Readonly<Record<string, RegisteredPrompt>>;
  readonly _registeredResources: Readonly<Record<string, RegisteredResource>>;
  readonly _registeredResourceTemplates: Readonly<Record<string, RegisteredResourceTemplate>>;
}

const supported: SupportedSdk = { adapter: 'mcp-gate/sdk', sdk: '@modelcontextprotocol/sdk 1.32.x' };

export function readInternals(server: McpServer): McpServerInternals {
  checkServerInternals(server, supported);
  return server as unknown as McpServerInternals;
}

/** The protocol's method → handler map. Wrapping its entries is how every handler gets gated. */
export function readHandlerMap(server: McpServer): Map<string, StoredHandler> {
  return handlerMapOf<StoredHandler>(server);
}

/**
 * Reads every registration as a PrimitiveSource, in registry order. Prompts' `_meta` comes from
 * `capturedPromptMeta`, because SDK 1.32's registerPrompt drops `config._meta`.
 */
export function* readSources(internals: McpServerInternals, capturedPromptMeta: WeakMap<object, unknown>): Generator<PrimitiveSource> {
  for (const [key, tool] of Object.entries(internals._registeredTools)) {
    yield { kind: 'tool', key, name: key, meta: tool._meta, enabled: tool.enabled };
  }
  for (const [key, prompt] of Object.entries(internals._registeredPrompts)) {
    yield { kind: 'prompt', key, name: key, meta: capturedPromptMeta.get(prompt), enabled: prompt.enabled };
  }
  for (const [uri, resource] of Object.entries(internals._registeredResources)) {
    yield { kind: 'resource', key: uri, name: resource.name, uri, meta: resource.metadata?._meta, enabled: resource.enabled };
  }
  for (const [key, template] of Object.entries(internals._registeredResourceTemplates)) {
    const uriTemplate = template.resourceTemplate.uriTemplate.toString();
    yield { kind: 'resourceTemplate', key, name: key, uriTemplate, meta: template.metadata?._meta };
  }
}

import type { PrimitiveSource } from './catalog.js';

/*
 * The one reader of McpServer registries. McpServer 1.32 and 2.4 keep their registrations in the
 * same four private fields with the same shape; the v1 and v2 adapters, the CLI's manifest and
 * mcp-gate/testing all read them here, so a field one of them forgot (a registration's `enabled`
 * flag, once) cannot make the bindings disagree.
 */

/** The four registries, in the order every reader walks them. */
export const registryFields = ['_registeredTools', '_registeredPrompts', '_registeredResources', '_registeredResourceTemplates'] as const;

/** The part of one registration the gate reads (the same in SDK 1.32 and 2.4). */
export interface RegistrationRecord {
  /** False after the server called `disable()`. */
  readonly enabled: boolean;
  /** Tools and (2.4) prompts. */
  readonly _meta?: unknown;
  /** A resource's name; templates and others are named by their registry key. */
  readonly name?: string;
  /** Resources and templates keep their `_meta` inside `metadata`. */
  readonly metadata?: { readonly _meta?: unknown } | undefined;
  readonly resourceTemplate?: { readonly uriTemplate: { toString(): string }; readonly listCallback?: unknown };
}

/** McpServer's four private registries (1.32 and 2.4), typed by each binding with its SDK's registration types. */
export interface McpServerRegistries<Tool, Prompt, Resource, Template> {
  readonly _registeredTools: Readonly<Record<string, Tool>>;
  readonly _registeredPrompts: Readonly<Record<string, Prompt>>;
  readonly _registeredResources: Readonly<Record<string, Resource>>;
  readonly _registeredResourceTemplates: Readonly<Record<string, Template>>;
}

export type ServerRegistries = McpServerRegistries<RegistrationRecord, RegistrationRecord, RegistrationRecord, RegistrationRecord>;

/** The first registry field `server` lacks, or undefined when it has all four; callers word the error. */
export function missingRegistryField(server: unknown): string | undefined {
  if (server === null || typeof server !== 'object') return registryFields[0];
  const candidate = server as Record<string, unknown>;
  return registryFields.find((field) => candidate[field] === null || typeof candidate[field] !== 'object');
}

/** One registration as read, with what only some readers need: whether a template lists resources. */
export interface RegistrySource extends PrimitiveSource {
  readonly enabled: boolean;
  /** A template's `list` callback is set (its resources appear in resources/list). */
  readonly lists?: boolean | undefined;
}

export interface RegistryReadOptions {
  /**
   * A prompt's `_meta`. SDK 1.32's registerPrompt drops `config._meta`, so mcp-gate/sdk passes
   * what it captured at registration; by default the registration's own `_meta` (2.4 keeps it).
   */
  readonly promptMeta?: ((prompt: RegistrationRecord) => unknown) | undefined;
}

/**
 * Every registration, enabled or not, in registry order. Nothing is cached: each call reads the
 * registries as they are now, so `update()`, `enable()`, `disable()`, `remove()` and a second
 * registration under a removed name are all seen by the next read.
 */
export function* readRegistrations(registries: ServerRegistries, options: RegistryReadOptions = {}): Generator<RegistrySource> {
  const promptMeta = options.promptMeta ?? ((prompt: RegistrationRecord) => prompt._meta);
  for (const [key, tool] of Object.entries(registries._registeredTools)) {
    yield { kind: 'tool', key, name: key, meta: tool._meta, enabled: tool.enabled };
  }
  for (const [key, prompt] of Object.entries(registries._registeredPrompts)) {
    yield { kind: 'prompt', key, name: key, meta: promptMeta(prompt), enabled: prompt.enabled };
  }
  for (const [uri, resource] of Object.entries(registries._registeredResources)) {
    yield { kind: 'resource', key: uri, name: resource.name ?? uri, uri, meta: resource.metadata?._meta, enabled: resource.enabled };
  }
  for (const [key, template] of Object.entries(registries._registeredResourceTemplates)) {
    const { uriTemplate, listCallback } = template.resourceTemplate!;
    yield {
      kind: 'resourceTemplate',
      key,
      name: key,
      uriTemplate: uriTemplate.toString(),
      meta: template.metadata?._meta,
      enabled: template.enabled,
      lists: listCallback !== undefined,
    };
  }
}

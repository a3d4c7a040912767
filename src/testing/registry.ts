import type { McpServer, RegisteredPrompt, RegisteredResource, RegisteredResourceTemplate, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { PrimitiveKind } from '../core/context.js';

// McpServer 1.32 keeps its registrations in private fields; mcp-gate/sdk reads the same four, so
// the kit supports exactly the servers the gate supports and fails loudly on any other.
interface Registries {
  readonly _registeredTools: Readonly<Record<string, RegisteredTool>>;
  readonly _registeredPrompts: Readonly<Record<string, RegisteredPrompt>>;
  readonly _registeredResources: Readonly<Record<string, RegisteredResource>>;
  readonly _registeredResourceTemplates: Readonly<Record<string, RegisteredResourceTemplate>>;
}

const registryFields = ['_registeredTools', '_registeredPrompts', '_registeredResources', '_registeredResourceTemplates'] as const;

function registriesOf(server: McpServer): Registries {
  const candidate = server as unknown as Record<string, unknown>;
  for (const field of registryFields) {
    if (candidate[field] === null || typeof candidate[field] !== 'object') {
      throw new TypeError(`mcp-gate/testing: createServer() must return an McpServer of @modelcontextprotocol/sdk 1.32.x (no ${field})`);
    }
  }
  return server as unknown as Registries;
}

/** One enabled registration, as the gate and the policy see it. */
export interface RegisteredPrimitive {
  readonly kind: PrimitiveKind;
  /** Registry key: tool, prompt and template name, resource URI. */
  readonly key: string;
  /** The name policies match (a resource's `name`, not its URI). */
  readonly name: string;
  readonly uri?: string | undefined;
  readonly uriTemplate?: UriTemplate | undefined;
  /** Whether a template has a `list` callback (its resources appear in resources/list). */
  readonly lists?: boolean | undefined;
  /** The registration's `_meta` (its `mcp-gate` entry is the annotation). */
  readonly meta: unknown;
}

/** Every enabled registration of a server, in registration order. */
export function readRegistry(server: McpServer): RegisteredPrimitive[] {
  const registries = registriesOf(server);
  const primitives: RegisteredPrimitive[] = [];
  for (const [key, tool] of Object.entries(registries._registeredTools)) {
    if (tool.enabled) primitives.push({ kind: 'tool', key, name: key, meta: tool._meta });
  }
  // SDK 1.32's registerPrompt drops `_meta`: prompts are annotated through the gate's `metadata` option.
  for (const [key, prompt] of Object.entries(registries._registeredPrompts)) {
    if (prompt.enabled) primitives.push({ kind: 'prompt', key, name: key, meta: undefined });
  }
  for (const [uri, resource] of Object.entries(registries._registeredResources)) {
    if (resource.enabled) primitives.push({ kind: 'resource', key: uri, name: resource.name, uri, meta: resource.metadata?._meta });
  }
  for (const [key, template] of Object.entries(registries._registeredResourceTemplates)) {
    if (!template.enabled) continue;
    const { uriTemplate, listCallback } = template.resourceTemplate;
    primitives.push({ kind: 'resourceTemplate', key, name: key, uriTemplate, lists: listCallback !== undefined, meta: template.metadata?._meta });
  }
  return primitives;
}

/** What "the registry is unchanged" compares: keys in order, each entry's identity and data. */
export interface RegistryFingerprint {
  readonly entries: ReadonlyMap<string, { readonly ref: object; readonly fields: ReadonlyMap<string, unknown>; readonly data: string }>;
}

export function fingerprintRegistry(server: McpServer): RegistryFingerprint {
  const registries = registriesOf(server);
  const entries = new Map<string, { ref: object; fields: Map<string, unknown>; data: string }>();
  for (const field of registryFields) {
    for (const [key, entry] of Object.entries(registries[field] as Record<string, object>)) {
      const fields = new Map(Object.entries(entry));
      entries.set(`${field}[${JSON.stringify(key)}]`, { ref: entry, fields, data: dataOf(entry) });
    }
  }
  return { entries };
}

/** Differences between two fingerprints of one server, one line each (empty when unchanged). */
export function diffRegistry(before: RegistryFingerprint, after: RegistryFingerprint): string[] {
  const differences: string[] = [];
  const beforeKeys = [...before.entries.keys()];
  const afterKeys = [...after.entries.keys()];
  if (beforeKeys.join('\n') !== afterKeys.join('\n')) differences.push(`registry keys changed: [${beforeKeys.join(', ')}] → [${afterKeys.join(', ')}]`);
  for (const [key, was] of before.entries) {
    const now = after.entries.get(key);
    if (!now) continue;
    if (now.ref !== was.ref) differences.push(`${key} was replaced by another object`);
    for (const [name, value] of was.fields) {
      if (now.fields.get(name) !== value) differences.push(`${key}.${name} changed`);
    }
    for (const name of now.fields.keys()) if (!was.fields.has(name)) differences.push(`${key}.${name} was added`);
    if (now.data !== was.data) differences.push(`${key}: its data (e.g. _meta, enabled, metadata) changed in place`);
  }
  return differences;
}

/** JSON of the plain data reachable from an entry (functions and schemas left out), bounded. */
function dataOf(entry: object): string {
  const seen = new Set<unknown>();
  let budget = 10_000;
  return JSON.stringify(entry, (key, value: unknown) => {
    if (--budget < 0 || typeof value === 'function' || key === 'inputSchema' || key === 'outputSchema' || key === 'argsSchema') return undefined;
    if (value !== null && typeof value === 'object') {
      if (seen.has(value)) return '[seen]';
      seen.add(value);
    }
    return value;
  });
}

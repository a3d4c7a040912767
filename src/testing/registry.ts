import { PolicyOptionError } from '../core/errors.js';
import type { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ServerMcpServer } from '@modelcontextprotocol/server';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import { missingRegistryField, readRegistrations, registryFields, type ServerRegistries } from '../adapter/registry-reader.js';

/** An McpServer of either SDK the gates support: @modelcontextprotocol/sdk 1.32 (v1) or @modelcontextprotocol/server 2.4 (v2). */
export type AnyMcpServer = SdkMcpServer | ServerMcpServer;

/** Which gate drives a server: `'sdk'` is mcp-gate/sdk (v1), `'server'` is mcp-gate/server (v2). */
export type GateAdapter = 'sdk' | 'server';

/** An `adapter` option as given (undefined: not given); anything but `'sdk'` or `'server'` is refused, naming the option. */
export function gateAdapterOption(adapter: GateAdapter | undefined): GateAdapter | undefined {
  if (adapter !== undefined && adapter !== 'sdk' && adapter !== 'server') {
    throw new PolicyOptionError(`mcp-gate/testing: option "adapter" must be "sdk" or "server", got ${JSON.stringify(adapter)}`);
  }
  return adapter;
}

// Both McpServers keep their registrations in the same four private fields, which both gates
// read through one reader (src/adapter/registry-reader.ts); the kit reads them through it too, so
// it sees exactly what the gates see, and fails loudly on any other server.
const supportedServers = 'an McpServer of @modelcontextprotocol/sdk 1.32.x or @modelcontextprotocol/server 2.4.x';

function registriesOf(server: AnyMcpServer): ServerRegistries {
  const missing = missingRegistryField(server);
  if (missing !== undefined) throw new PolicyOptionError(`mcp-gate/testing: createServer() must return ${supportedServers} (no ${missing})`);
  return server as unknown as ServerRegistries;
}

/**
 * Which McpServer this is. Only 2.4 asks the server for a tool's input schema and scope
 * challenge before dispatch (the members mcp-gate/server wraps); 1.32 has neither.
 */
export function detectAdapter(server: AnyMcpServer): GateAdapter {
  registriesOf(server);
  const members = server as unknown as Record<string, unknown>;
  return typeof members['toolInputSchemaJson'] === 'function' && typeof members['resolveScopeChallenge'] === 'function' ? 'server' : 'sdk';
}

/** One enabled registration, as the gate and the policy see it. */
export interface RegisteredPrimitive {
  readonly kind: PrimitiveKind;
  /** Registry key: tool, prompt and template name, resource URI. */
  readonly key: string;
  /** The name policies match (a resource's `name`, not its URI). */
  readonly name: string;
  readonly uri?: string | undefined;
  /** A template's URI template, as registered. */
  readonly uriTemplate?: string | undefined;
  /** Whether a template has a `list` callback (its resources appear in resources/list). */
  readonly lists?: boolean | undefined;
  /** The registration's `_meta` (its `mcp-gate` entry is the annotation). */
  readonly meta: unknown;
}

/**
 * Every enabled registration of a server, in registration order. SDK 1.32's registerPrompt drops
 * `_meta` (prompts are annotated through the gate's `metadata` option there); 2.4 keeps it.
 */
export function readRegistry(server: AnyMcpServer): RegisteredPrimitive[] {
  const primitives: RegisteredPrimitive[] = [];
  for (const { enabled, kind, key, name, uri, uriTemplate, lists, meta } of readRegistrations(registriesOf(server))) {
    if (!enabled) continue;
    if (kind === 'resource') primitives.push({ kind, key, name, uri, meta });
    else if (kind === 'resourceTemplate') primitives.push({ kind, key, name, uriTemplate, lists, meta });
    else primitives.push({ kind, key, name, meta });
  }
  return primitives;
}

/** What "the registry is unchanged" compares: keys in order, each entry's identity and data. */
export interface RegistryFingerprint {
  readonly entries: ReadonlyMap<string, { readonly ref: object; readonly fields: ReadonlyMap<string, unknown>; readonly data: string }>;
}

export function fingerprintRegistry(server: AnyMcpServer): RegistryFingerprint {
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

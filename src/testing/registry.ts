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

/** What "the registry is unchanged" compares: keys in order, each entry's identity, fields and data. */
export interface RegistryFingerprint {
  readonly entries: ReadonlyMap<string, EntryFingerprint>;
}

interface EntryFingerprint {
  readonly ref: object;
  /** The entry's own fields in order, values by identity. */
  readonly fields: readonly (readonly [string, unknown])[];
  /** JSON of the plain data its object-valued fields reach: what can change in place. */
  readonly data: string;
}

export function fingerprintRegistry(server: AnyMcpServer): RegistryFingerprint {
  const registries = registriesOf(server);
  const entries = new Map<string, EntryFingerprint>();
  for (const field of registryFields) {
    for (const [key, entry] of Object.entries(registries[field] as Record<string, object>)) {
      const fields = ownFields(entry as Record<string, unknown>);
      entries.set(`${field}[${JSON.stringify(key)}]`, { ref: entry, fields, data: dataOf(fields) });
    }
  }
  return { entries };
}

/**
 * The entry's own enumerable fields and their values, as Object.entries reads them. Not
 * Object.entries itself: on an entry with an accessor (2.4's tools have `outputSchemaJson`) V8
 * takes its slow path there, about 5x the cost of reading the keys and then each value.
 */
function ownFields(entry: Record<string, unknown>): [string, unknown][] {
  return Object.keys(entry).map((name) => [name, entry[name]]);
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
    if (!sameFields(was.fields, now.fields)) differences.push(...fieldDifferences(key, was.fields, now.fields));
    if (now.data !== was.data) differences.push(`${key}: its data (e.g. _meta, enabled, metadata) changed in place`);
  }
  return differences;
}

/** The common case, checked without building maps: the same names holding the same values, in the same order. */
function sameFields(was: EntryFingerprint['fields'], now: EntryFingerprint['fields']): boolean {
  if (was.length !== now.length) return false;
  return was.every(([name, value], index) => now[index]![0] === name && now[index]![1] === value);
}

function fieldDifferences(key: string, was: EntryFingerprint['fields'], now: EntryFingerprint['fields']): string[] {
  const differences: string[] = [];
  const nowFields = new Map(now);
  const wasNames = new Set(was.map(([name]) => name));
  for (const [name, value] of was) if (nowFields.get(name) !== value) differences.push(`${key}.${name} changed`);
  for (const name of nowFields.keys()) if (!wasNames.has(name)) differences.push(`${key}.${name} was added`);
  return differences;
}

// Schemas are left out of an entry's data: they are the SDK's objects, not the registration's data.
const schemaFields = new Set(['inputSchema', 'outputSchema', 'argsSchema']);

/**
 * JSON of the plain data reachable from an entry's object-valued fields (functions and schemas
 * left out), bounded. Fields holding a primitive are left out too: such a value cannot change in
 * place, and a new one is a changed field (`sameFields`).
 */
function dataOf(fields: EntryFingerprint['fields']): string {
  const seen = new Set<unknown>();
  let budget = 10_000;
  const replacer = (key: string, value: unknown) => {
    if (--budget < 0 || typeof value === 'function' || schemaFields.has(key)) return undefined;
    if (value !== null && typeof value === 'object') {
      if (seen.has(value)) return '[seen]';
      seen.add(value);
    }
    return value;
  };
  const parts: string[] = [];
  for (const [name, value] of fields) {
    if (value !== null && typeof value === 'object' && !schemaFields.has(name)) parts.push(`${JSON.stringify(name)}:${JSON.stringify(value, replacer)}`);
  }
  return parts.join(',');
}

import { z } from 'zod';
import { CapabilityMemo, FrozenRequestContext, RequestMemo } from './request-memo.js';

/** What mcp-gate knows about one request. Built once per request by an adapter, then frozen. */
export interface RequestContext {
  readonly request: {
    /** JSON-RPC method, e.g. `tools/list`, `tools/call`. */
    readonly method: string;
    /** HTTP headers, names lower-cased; repeated headers are joined with ", ". */
    readonly headers: Readonly<Record<string, string>>;
    /** URL path of the endpoint the request arrived on (query excluded), e.g. `/mcp/admin`; `''` for stdio. */
    readonly endpoint: string;
    readonly sessionId?: string | undefined;
    readonly protocolVersion?: string | undefined;
  };
  readonly client: {
    readonly name?: string | undefined;
    readonly version?: string | undefined;
    /** The client's declared capabilities; undefined when the request did not say (stateless, no envelope). */
    readonly capabilities?: Readonly<Record<string, unknown>> | undefined;
  };
  readonly auth: {
    readonly clientId?: string | undefined;
    readonly subject?: string | undefined;
    readonly scopes: readonly string[];
    readonly claims: Readonly<Record<string, unknown>>;
  };
}

export type PrimitiveKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** Metadata of one tool, prompt, resource or resource template, as policies see it. */
export interface PrimitiveMetadata {
  readonly kind: PrimitiveKind;
  readonly name: string;
  readonly uri?: string | undefined;
  readonly uriTemplate?: string | undefined;
  readonly version?: string | undefined;
  readonly groups: readonly string[];
  readonly tags: readonly string[];
  readonly requires: {
    /** Capability paths such as `sampling`, `elicitation.url`, `extensions.com.example/report-export`. */
    readonly capabilities: readonly string[];
    /** Header name (case-insensitive) → exact value the request must carry. */
    readonly headers: Readonly<Record<string, string>>;
  };
  /** Globs over the URL path; empty means every endpoint. */
  readonly endpoints: readonly string[];
}

const stringRecord = z.record(z.string(), z.string());

export const requestContextSchema = z.strictObject({
  request: z.strictObject({
    method: z.string(),
    headers: stringRecord,
    endpoint: z.string(),
    sessionId: z.string().optional(),
    protocolVersion: z.string().optional(),
  }),
  client: z.strictObject({
    name: z.string().optional(),
    version: z.string().optional(),
    capabilities: z.record(z.string(), z.unknown()).optional(),
  }),
  auth: z.strictObject({
    clientId: z.string().optional(),
    subject: z.string().optional(),
    scopes: z.array(z.string()),
    claims: z.record(z.string(), z.unknown()),
  }),
});

export const primitiveKindSchema = z.enum(['tool', 'prompt', 'resource', 'resourceTemplate']);

const nonEmpty = z.string().min(1);

/** The part of the metadata a server author writes (in `_meta['mcp-gate']` or the `metadata` option). */
export const primitiveAnnotationSchema = z.strictObject({
  version: nonEmpty.optional(),
  groups: z.array(nonEmpty).optional(),
  tags: z.array(nonEmpty).optional(),
  requires: z
    .strictObject({
      capabilities: z.array(nonEmpty).optional(),
      headers: z.record(nonEmpty, z.string()).optional(),
    })
    .optional(),
  endpoints: z.array(nonEmpty).optional(),
});

export type PrimitiveAnnotation = z.infer<typeof primitiveAnnotationSchema>;

export const primitiveMetadataSchema = z.strictObject({
  kind: primitiveKindSchema,
  name: nonEmpty,
  uri: z.string().optional(),
  uriTemplate: z.string().optional(),
  version: nonEmpty.optional(),
  groups: z.array(nonEmpty),
  tags: z.array(nonEmpty),
  requires: z.strictObject({
    capabilities: z.array(nonEmpty),
    headers: z.record(nonEmpty, z.string()),
  }),
  endpoints: z.array(nonEmpty),
});

export interface RequestContextInput {
  /** Headers may come as Node delivers them: repeated ones as arrays, which are joined with ", ". */
  request?: Partial<Omit<RequestContext['request'], 'headers'>> & {
    headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  };
  client?: Partial<RequestContext['client']>;
  auth?: Partial<RequestContext['auth']>;
}

/**
 * Builds a frozen RequestContext, lower-casing header names (repeated names are joined with
 * ", "); missing parts get empty defaults. Capabilities and claims are copied as plain data, so
 * the context never shares or freezes an object the SDK owns. Runs on every request: it freezes
 * level by level instead of walking, and copies a given capabilities object only once.
 */
export function createRequestContext(input: RequestContextInput = {}): RequestContext {
  const { request, client, auth } = input;
  const headers: Record<string, string> = {};
  const sourceHeaders = request?.headers;
  if (sourceHeaders) {
    for (const name of Object.keys(sourceHeaders)) {
      const raw = sourceHeaders[name];
      const value = typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.filter((item) => typeof item === 'string').join(', ') : undefined;
      if (value === undefined) continue;
      const key = name.toLowerCase();
      if (key === '__proto__') continue;
      headers[key] = Object.hasOwn(headers, key) ? `${headers[key]}, ${value}` : value;
    }
  }
  const declared = declaredCapabilities(client?.capabilities);
  return new FrozenRequestContext(
    Object.freeze({
      method: request?.method ?? '',
      headers: Object.freeze(headers),
      endpoint: request?.endpoint ?? '',
      sessionId: request?.sessionId,
      protocolVersion: request?.protocolVersion,
    }),
    Object.freeze({
      name: client?.name,
      version: client?.version,
      capabilities: declared?.capabilities,
    }),
    Object.freeze({
      clientId: auth?.clientId,
      subject: auth?.subject,
      scopes: Object.freeze((auth?.scopes ?? []).filter((scope) => typeof scope === 'string')),
      claims: (copyPlainData(auth?.claims) ?? emptyRecord) as Record<string, unknown>,
    }),
    new RequestMemo(declared?.memo),
  );
}

const emptyRecord = Object.freeze({});

/** A frozen copy of declared capabilities, with the memo of answers about it shared by every request that declares it. */
interface DeclaredCapabilities {
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly memo: CapabilityMemo;
}

const declaredCopies = new WeakMap<object, DeclaredCapabilities>();
const declaresNothing: DeclaredCapabilities = { capabilities: emptyRecord, memo: new CapabilityMemo() };

/**
 * A session declares its capabilities once and sends many requests: each object is copied once,
 * and what a policy learns about the copy (which capability sets it has) serves every request of
 * the session.
 */
function declaredCapabilities(source: RequestContext['client']['capabilities']): DeclaredCapabilities | undefined {
  if (source === undefined) return undefined;
  if (source === null || typeof source !== 'object') return declaresNothing;
  const known = declaredCopies.get(source);
  if (known !== undefined) return known;
  const copy = copyPlainData(source) as RequestContext['client']['capabilities'];
  // An array or a class instance is not a capability map: it declares nothing (fail closed),
  // which differs from declaring no capabilities at all (onMissingCapabilities).
  const declared = copy !== undefined && !Array.isArray(copy) ? { capabilities: copy, memo: new CapabilityMemo() } : declaresNothing;
  declaredCopies.set(source, declared);
  return declared;
}

/** Builds frozen PrimitiveMetadata from a kind, a name and the author's annotation; header names lower-cased. */
export function createPrimitiveMetadata(
  kind: PrimitiveKind,
  name: string,
  annotation: PrimitiveAnnotation = {},
  location: { uri?: string; uriTemplate?: string } = {},
): PrimitiveMetadata {
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(annotation.requires?.headers ?? {})) headers[header.toLowerCase()] = value;
  const metadata = {
    kind,
    name,
    uri: location.uri,
    uriTemplate: location.uriTemplate,
    version: annotation.version,
    groups: [...(annotation.groups ?? [])],
    tags: [...(annotation.tags ?? [])],
    requires: { capabilities: [...(annotation.requires?.capabilities ?? [])], headers },
    endpoints: [...(annotation.endpoints ?? [])],
  };
  // A hidden, mutable slot inside the frozen metadata where a policy keeps its per-primitive
  // plan: cheaper on the hot path than a WeakMap lookup per decision.
  Object.defineProperty(metadata, planSlot, { value: { owner: undefined, defaultDecides: false, requirements: undefined, deny: undefined, allow: undefined, first: undefined }, enumerable: false });
  return deepFreeze(metadata);
}

/** Key of the plan slot of metadata built by createPrimitiveMetadata (see rule-plan.ts). */
export const planSlot: unique symbol = Symbol('mcp-gate.plan');

/** A policy's plan for one primitive, kept in the primitive itself (the fields of rule-plan.ts's PrimitivePlan). */
export interface PlanSlot {
  owner: unknown;
  defaultDecides: boolean;
  requirements: unknown;
  deny: unknown;
  allow: unknown;
  first: unknown;
}

const maxCopiedDepth = 32;

/**
 * Copies JSON-like data so the frozen context never shares (or freezes) an object the SDK owns.
 * Anything that is not plain data (functions, class instances, cycles, nesting past 32 levels)
 * is dropped, so a hostile capability object cannot make evaluation misbehave.
 */
function copyPlainData(value: unknown, ancestors: unknown[] = []): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (ancestors.length >= maxCopiedDepth || ancestors.includes(value)) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return undefined;
  ancestors.push(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = Object.freeze(value.map((item) => copyPlainData(item, ancestors) ?? null));
  } else {
    const record: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key === '__proto__') continue;
      const item = copyPlainData((value as Record<string, unknown>)[key], ancestors);
      if (item !== undefined) record[key] = item;
    }
    copy = Object.freeze(record);
  }
  ancestors.pop();
  return copy;
}

function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || seen.has(value)) return value;
  seen.add(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key], seen);
  return Object.freeze(value);
}

import { z } from 'zod';
import { joinPath, PolicyError, RequestContextError } from './errors.js';
import { copyHeaders, copyPlainData, CopyBudget, pickHeaders, stringsOf, UnreadableValue } from './context-input.js';
import { CapabilityMemo, FrozenRequestContext } from './request-memo.js';

export { maxCopiedValues } from './context-input.js';

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
    /** Who issued the token (its `iss` claim), e.g. `https://idp.example.com`. */
    readonly issuer?: string | undefined;
    readonly scopes: readonly string[];
    readonly claims: Readonly<Record<string, unknown>>;
  };
  /**
   * Feature-flag values by flag key, as resolved for this request before deciding (policies read
   * them as `flags.<key>`); undefined when nothing resolved flags. A flag missing here reads as
   * the default the policy declares.
   */
  readonly flags?: Readonly<Record<string, FlagValue>> | undefined;
}

/** A feature flag's value: what an OpenFeature client resolves (boolean, string, number or JSON structure). */
export type FlagValue = boolean | string | number | readonly unknown[] | Readonly<Record<string, unknown>>;

const stringRecord = z.record(z.string(), z.string());

/** The zod schema of a RequestContext (the shape createRequestContext builds). */
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
    issuer: z.string().optional(),
    scopes: z.array(z.string()),
    claims: z.record(z.string(), z.unknown()),
  }),
});

/** What createRequestContext accepts: any part may be missing or loosely typed, as adapters receive it. */
export interface RequestContextInput {
  /** Headers may come as Node delivers them: repeated ones as arrays, which are joined with ", ". */
  request?: Partial<Omit<RequestContext['request'], 'headers'>> & {
    headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  };
  client?: Partial<RequestContext['client']>;
  auth?: Partial<RequestContext['auth']>;
  /** Flag values by key (copied as plain data); what a gate resolved, or what `explain --context` gives. */
  flags?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Builds a frozen RequestContext, lower-casing header names (repeated names are joined with
 * ", "); missing parts get empty defaults and fields of the wrong type are dropped. Capabilities
 * and claims are copied as plain data, so the context never shares or freezes an object the SDK
 * owns. Input that cannot be read (a getter or proxy trap throws) or is too large to copy throws
 * a RequestContextError naming the part.
 */
export function createRequestContext(input: RequestContextInput = {}): RequestContext {
  return createPlannedRequestContext(input, wholeContext);
}

/**
 * Which parts of a context to build: an adapter builds only what the policy in force, the
 * primitives' requirements and its own consumers read (src/adapter/context-plan.ts); the parts
 * left out read as empty. Scalar fields (method, endpoint, names, ids) are always set.
 */
export interface ContextPlan {
  /**
   * `'all'`, or the lower-cased header names to keep. With names, the source must already use
   * lower-case names (as Node's `IncomingMessage` and fetch's `Headers` do): each is looked up
   * directly instead of lower-casing every header of the request.
   */
  readonly headers: 'all' | readonly string[];
  /** Copy the declared capabilities; otherwise only whether any were declared is kept (an empty object). */
  readonly capabilities: boolean;
  readonly scopes: boolean;
  readonly claims: boolean;
}

export const wholeContext: ContextPlan = Object.freeze({ headers: 'all', capabilities: true, scopes: true, claims: true });

/** createRequestContext for one plan: the parts the plan leaves out are never read from the input. */
export function createPlannedRequestContext(input: RequestContextInput, plan: ContextPlan): RequestContext {
  const reading: ReadingState = { path: 'input' };
  try {
    return buildContext(input, plan, reading);
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    const inner = error instanceof UnreadableValue ? error : new UnreadableValue([], error);
    throw new RequestContextError(inner.keys.reduce(joinPath, reading.path), inner.problem, inner.cause);
  }
}

/** The part being read, for the error message when reading it throws. */
interface ReadingState {
  path: string;
}

function buildContext(input: RequestContextInput, plan: ContextPlan, reading: ReadingState): RequestContext {
  const { request, client, auth, flags } = input ?? {};
  reading.path = 'request.headers';
  const headers = plan.headers === 'all' ? copyHeaders(request?.headers) : pickHeaders(request?.headers, plan.headers);
  reading.path = 'request';
  const builtRequest = Object.freeze({
    method: stringOr(request?.method, ''),
    headers,
    endpoint: stringOr(request?.endpoint, ''),
    sessionId: stringOr(request?.sessionId, undefined),
    protocolVersion: stringOr(request?.protocolVersion, undefined),
  });
  reading.path = 'client.capabilities';
  const declared = plan.capabilities ? declaredCapabilities(client?.capabilities) : declaredUnread(client?.capabilities);
  reading.path = 'client';
  const builtClient = Object.freeze({
    name: stringOr(client?.name, undefined),
    version: stringOr(client?.version, undefined),
    capabilities: declared?.capabilities,
  });
  reading.path = 'auth.scopes';
  const scopes = plan.scopes ? copyScopes(auth?.scopes) : noScopes;
  reading.path = 'auth.claims';
  const claims = plan.claims ? copyClaims(auth?.claims) : emptyRecord;
  reading.path = 'auth';
  const builtAuth = Object.freeze({
    clientId: stringOr(auth?.clientId, undefined),
    subject: stringOr(auth?.subject, undefined),
    issuer: stringOr(auth?.issuer, undefined),
    scopes,
    claims,
  });
  reading.path = 'flags';
  const builtFlags = flags === undefined ? undefined : copyFlags(flags);
  const source = plan === wholeContext ? undefined : input;
  return new FrozenRequestContext(builtRequest, builtClient, builtAuth, declared?.memo, source, builtFlags);
}

/**
 * The whole context of a request whose context was built for a plan: what a different policy
 * may read (a gate deciding, after a policy swap, what a session's lists now show). A context
 * built whole, or not by this module, is returned as it is.
 */
export function wholeContextOf(context: RequestContext): RequestContext {
  const source = FrozenRequestContext.partialSourceOf(context);
  if (source === undefined) return context;
  // Flags a gate resolved after building the context are not in its source: they are carried over.
  return createRequestContext(context.flags === undefined ? (source as RequestContextInput) : { ...(source as RequestContextInput), flags: context.flags });
}

function stringOr<T extends string | undefined>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

const emptyRecord = Object.freeze({});
const noScopes: readonly string[] = Object.freeze([]);

function copyScopes(source: unknown): readonly string[] {
  // Scopes of the wrong type grant nothing (a string is not a list of one scope).
  if (!Array.isArray(source)) return noScopes;
  return Object.freeze(stringsOf(source));
}

function copyClaims(source: unknown): Readonly<Record<string, unknown>> {
  const copy = copyPlainData(source, new CopyBudget());
  return copy !== null && typeof copy === 'object' && !Array.isArray(copy) ? (copy as Record<string, unknown>) : emptyRecord;
}

function copyFlags(source: unknown): Readonly<Record<string, FlagValue>> {
  const copy = copyPlainData(source, new CopyBudget());
  return copy !== null && typeof copy === 'object' && !Array.isArray(copy) ? (copy as Record<string, FlagValue>) : emptyRecord;
}

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
 * the session. (A getter that answers differently later is read once: the first copy stands.)
 */
function declaredCapabilities(source: RequestContext['client']['capabilities']): DeclaredCapabilities | undefined {
  if (source === undefined) return undefined;
  if (source === null || typeof source !== 'object') return declaresNothing;
  const known = declaredCopies.get(source);
  if (known !== undefined) return known;
  const copy = copyPlainData(source, new CopyBudget()) as RequestContext['client']['capabilities'];
  // An array or a class instance is not a capability map: it declares nothing (fail closed),
  // which differs from declaring no capabilities at all (onMissingCapabilities).
  const declared = copy !== undefined && !Array.isArray(copy) ? { capabilities: copy, memo: new CapabilityMemo() } : declaresNothing;
  declaredCopies.set(source, declared);
  return declared;
}

/** Capabilities nothing reads: only whether the request declared any, which decides `onMissingCapabilities`. */
function declaredUnread(source: unknown): DeclaredCapabilities | undefined {
  return source === undefined ? undefined : declaresNothing;
}

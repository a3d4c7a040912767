import type { FlagValue, RequestContext } from '../core/context.js';
import { PolicyError, PolicyOptionError } from '../core/errors.js';
import { describeFlagFallbacks, withFlagValues, type FlagFallback } from '../core/flag-values.js';
import type { Policy } from '../core/policy/types.js';
import type { GatedRequest } from './gated-request.js';

// Flags inside policies (`{"var": "flags.new-search"}`): before a request is decided, the gate
// resolves exactly the flag keys the policy in force reads, once, through an OpenFeature client,
// and decides on the request's context with those values (core/flag-values.ts). The rules stay
// synchronous and a whole list sees one flag state. Resolution is bounded by a timeout; a flag
// that errs or is late holds the default the policy declares (fail closed), and that is reported.

/** What the gate asks of an OpenFeature `Client` (`OpenFeature.getClient()` of `@openfeature/server-sdk` is one). */
export interface FlagClient {
  getBooleanDetails(flagKey: string, defaultValue: boolean, context: FlagEvaluationContext): Promise<FlagDetails>;
  getStringDetails(flagKey: string, defaultValue: string, context: FlagEvaluationContext): Promise<FlagDetails>;
  getNumberDetails(flagKey: string, defaultValue: number, context: FlagEvaluationContext): Promise<FlagDetails>;
  getObjectDetails(flagKey: string, defaultValue: FlagJson, context: FlagEvaluationContext): Promise<FlagDetails>;
}

type FlagJson = readonly unknown[] | Readonly<Record<string, unknown>>;

/** The parts of OpenFeature's EvaluationDetails the gate reads. */
export interface FlagDetails {
  readonly value: unknown;
  readonly errorCode?: string | undefined;
  readonly errorMessage?: string | undefined;
}

/**
 * The OpenFeature evaluation context of a request: `targetingKey` is `auth.subject`, else
 * `auth.clientId`, else the session id; `client.name`; and the allow-listed headers as
 * `request.headers.<name>` (the paths a policy reads them by, so flagd targeting reads alike).
 */
export type FlagEvaluationContext = Record<string, FlagContextValue>;

/** An attribute value of an evaluation context (OpenFeature's EvaluationContextValue, as the gate fills it). */
export type FlagContextValue = string | number | boolean | { [name: string]: FlagContextValue };

/** The gate's `flags` option: how the flags a policy reads are resolved per request. */
export interface GateFlagOptions {
  /** An OpenFeature client (`OpenFeature.getClient()`), with a provider set (flagd, in-memory, …). */
  client: FlagClient;
  /** How long one request waits for its flags before deciding on the declared defaults. Default 200. */
  timeoutMs?: number;
  /** Request headers passed to the provider in the evaluation context (never any other header). */
  headers?: readonly string[];
}

/** Default of `flags.timeoutMs`. */
export const defaultFlagTimeoutMs = 200;

/** Resolves a request's flags; made once per gate from the `flags` option. */
export interface FlagResolver {
  /** The client flags are resolved with (flag-changes.ts follows its provider's changes). */
  readonly client: FlagClient;
  /** Lower-cased header names the evaluation context carries (the request's context must keep them). */
  readonly headers: readonly string[];
  /** The context with the values of these flags (key → declared default); never rejects. */
  resolve(context: RequestContext, flags: Readonly<Record<string, FlagValue>>): Promise<RequestContext>;
}

/** Flags held their declared defaults for a request because resolving them failed (reported through `onError`). */
export class FlagResolutionError extends PolicyError {
  override name = 'FlagResolutionError';
  readonly fallbacks: readonly FlagFallback[];

  constructor(fallbacks: readonly FlagFallback[]) {
    super(`mcp-gate: ${describeFlagFallbacks(fallbacks)}`);
    this.fallbacks = fallbacks;
  }
}

/** Validates the `flags` option (undefined when not given); errors name the option. */
export function createFlagResolver(options: GateFlagOptions | undefined, reportError: (error: Error) => void): FlagResolver | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object')
    throw new PolicyOptionError(`mcp-gate: option "flags" must be an object with a "client", got ${options === null ? 'null' : typeof options}`);
  const { client, timeoutMs = defaultFlagTimeoutMs, headers = [] } = options;
  const methods = ['getBooleanDetails', 'getStringDetails', 'getNumberDetails', 'getObjectDetails'] as const;
  if (client === null || typeof client !== 'object' || methods.some((method) => typeof client[method] !== 'function')) {
    throw new PolicyOptionError('mcp-gate: option "flags.client" must be an OpenFeature client (OpenFeature.getClient() of @openfeature/server-sdk)');
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new PolicyOptionError(`mcp-gate: option "flags.timeoutMs" must be a positive number of milliseconds, got ${JSON.stringify(timeoutMs)}`);
  }
  if (!Array.isArray(headers) || headers.some((name) => typeof name !== 'string' || name === '')) {
    throw new PolicyOptionError('mcp-gate: option "flags.headers" must be an array of header names');
  }
  const headerNames = Object.freeze([...new Set(headers.map((name) => name.toLowerCase()))]);
  return {
    client,
    headers: headerNames,
    async resolve(context, flags) {
      const { values, fallbacks } = await resolveFlagValues(client, flags, evaluationContextOf(context, headerNames), timeoutMs);
      try {
        const resolved = withFlagValues(context, values, fallbacks);
        if (fallbacks.length > 0) reportError(new FlagResolutionError(fallbacks));
        return resolved;
      } catch (error) {
        // A JSON value too large to copy into the frozen context (maxCopiedValues): every flag holds its default.
        const why = `a resolved value could not be copied: ${error instanceof Error ? error.message : String(error)}`;
        const all = Object.entries(flags).map(([key, value]) => ({ key, value, why }));
        reportError(new FlagResolutionError(all));
        return withFlagValues(context, flags, all);
      }
    },
  };
}

/** Fails when the policy reads flags and the gate has no `flags` option (fail closed, at setup). */
export function assertFlagsResolvable(policy: Policy, resolver: FlagResolver | undefined): void {
  const keys = Object.keys(policy.flags ?? {});
  if (keys.length === 0 || resolver !== undefined) return;
  throw new PolicyOptionError(
    `mcp-gate: the policy reads flag${keys.length === 1 ? '' : 's'} ${keys.map((key) => JSON.stringify(key)).join(', ')}: give the gate option "flags" with an OpenFeature client (flags: { client: OpenFeature.getClient() })`,
  );
}

/**
 * The request with the flags its policy reads resolved into its context (the same request
 * when the policy reads none). The one step a binding adds before it decides.
 */
export async function resolveRequestFlags<Request extends GatedRequest>(gated: Request, resolver: FlagResolver | undefined): Promise<Request> {
  const flags = gated.view.policy.flags;
  if (resolver === undefined || flags === undefined || Object.keys(flags).length === 0) return gated;
  return { ...gated, context: await resolver.resolve(gated.context, flags) };
}

/** The evaluation context of a request, for the provider's targeting. */
export function evaluationContextOf(context: RequestContext, headerNames: readonly string[]): FlagEvaluationContext {
  const evaluation: FlagEvaluationContext = {};
  const targetingKey = context.auth.subject ?? context.auth.clientId ?? context.request.sessionId;
  if (targetingKey !== undefined) evaluation['targetingKey'] = targetingKey;
  if (context.client.name !== undefined) evaluation['client'] = { name: context.client.name };
  const headers: Record<string, string> = {};
  for (const name of headerNames) {
    const value = context.request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  if (headerNames.length > 0) evaluation['request'] = { headers };
  return evaluation;
}

interface ResolvedFlags {
  readonly values: Record<string, FlagValue>;
  readonly fallbacks: FlagFallback[];
}

type Outcome = { readonly value: FlagValue } | { readonly why: string };

/** Every flag at once, under one timer: what has not settled when it fires holds its default. */
async function resolveFlagValues(
  client: FlagClient,
  flags: Readonly<Record<string, FlagValue>>,
  evaluation: FlagEvaluationContext,
  timeoutMs: number,
): Promise<ResolvedFlags> {
  const outcomes = new Map<string, Outcome>();
  const keys = Object.keys(flags);
  const all = Promise.all(keys.map(async (key) => outcomes.set(key, await resolveFlag(client, key, flags[key]!, evaluation))));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  try {
    await Promise.race([all, late]);
  } finally {
    clearTimeout(timer);
  }
  const values: Record<string, FlagValue> = {};
  const fallbacks: FlagFallback[] = [];
  for (const key of keys) {
    const outcome = outcomes.get(key) ?? { why: `not resolved within ${timeoutMs} ms` };
    if ('value' in outcome) {
      values[key] = outcome.value;
    } else {
      values[key] = flags[key]!;
      fallbacks.push({ key, value: flags[key]!, why: outcome.why });
    }
  }
  return { values, fallbacks };
}

/** One flag, resolved as the type of its declared default; never rejects. */
async function resolveFlag(client: FlagClient, key: string, fallback: FlagValue, evaluation: FlagEvaluationContext): Promise<Outcome> {
  try {
    const details = await detailsOf(client, key, fallback, evaluation);
    if (details.errorCode !== undefined) return { why: details.errorMessage ? `${details.errorCode}: ${details.errorMessage}` : details.errorCode };
    if (!sameType(details.value, fallback)) return { why: `TYPE_MISMATCH: resolved a ${typeName(details.value)}, the policy declares a ${typeName(fallback)}` };
    return { value: details.value as FlagValue };
  } catch (error) {
    return { why: `the client failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function detailsOf(client: FlagClient, key: string, fallback: FlagValue, evaluation: FlagEvaluationContext): Promise<FlagDetails> {
  switch (typeof fallback) {
    case 'boolean':
      return client.getBooleanDetails(key, fallback, evaluation);
    case 'string':
      return client.getStringDetails(key, fallback, evaluation);
    case 'number':
      return client.getNumberDetails(key, fallback, evaluation);
    default:
      return client.getObjectDetails(key, fallback, evaluation);
  }
}

function sameType(value: unknown, fallback: FlagValue): boolean {
  return typeName(value) === typeName(fallback);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

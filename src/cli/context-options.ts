import type { RequestContext, RequestContextInput } from '../core/context.js';
import { toPolicyIssues } from '../core/policy/schema.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { requestContextInputSchema } from './cases.js';
import { parseJson, UsageError } from './io.js';
import { describeProfile, findClientProfile, profileContext, type ClientProfile } from '../profiles/client-profiles.js';

/** The endpoint a command assumes: the demo server's and the usual Streamable HTTP path. */
export const defaultEndpoint = '/mcp';

/** `name=value` or `name: value`, as people copy them from curl or docs. */
function parseHeaders(values: readonly string[], command: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const match = /^([^=:\s]+)\s*(?:=|:\s*)(.*)$/s.exec(value);
    if (!match) throw new UsageError(`${command}: --header "${value}" must look like NAME=VALUE`);
    const name = match[1]!.toLowerCase();
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${match[2]!}` : match[2]!;
  }
  return headers;
}

/** A JSON object option (`--capabilities`, `--claims`); anything else is one usage line naming the option. */
function parseObjectOption(json: string, option: string, example: string, command: string): Record<string, unknown> {
  const value = parseOptionJson(json, option, command);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${command}: ${option} must be a JSON object such as '${example}'`);
  }
  return value as Record<string, unknown>;
}

function parseOptionJson(json: string, option: string, command: string): unknown {
  try {
    return parseJson(json, option);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

/** Options shared by `explain` and `diff` that describe the request beyond a profile: client, credentials, headers. */
export const contextOptionSpecs = {
  'client-name': { type: 'string', value: 'NAME', description: `the client's name (clientInfo.name), replacing a profile's` },
  'client-version': { type: 'string', value: 'V', description: `the client's version (clientInfo.version), e.g. for sem_ver rules` },
  scope: { type: 'string', multiple: true, value: 'S', description: 'an OAuth scope of the caller (repeatable, or space-separated)' },
  subject: { type: 'string', value: 'ID', description: 'auth.subject: the user the token is for' },
  issuer: { type: 'string', value: 'URL', description: `auth.issuer: who issued the token (its "iss" claim), e.g. https://idp.example.com` },
  'client-id': { type: 'string', value: 'ID', description: 'auth.clientId: the OAuth client the token was issued to' },
  claims: { type: 'string', value: 'JSON', description: `auth.claims, e.g. '{"org": "acme"}'` },
  context: { type: 'string', value: 'JSON', description: 'a whole RequestContextInput {request, client, auth, flags}; the other options override its fields' },
  header: { type: 'string', multiple: true, value: 'NAME=VALUE', description: 'a request header (repeatable), e.g. x-canary=1' },
} as const satisfies OptionSpecs;

/** contextOptionSpecs as a command's usage line shows them, `[--client-name NAME] … [--header NAME=VALUE]…`, so a new option appears there too. */
export const contextOptionsUsage = Object.entries(contextOptionSpecs)
  .map(([name, spec]) => `[--${name} ${spec.value}]${'multiple' in spec ? '…' : ''}`)
  .join(' ');

/** `--context`, and the explicit options that override its fields. */
export interface ContextOptions {
  /** `--context` as given, or `{}`. */
  readonly context: RequestContextInput;
  readonly contextGiven: boolean;
  /** Fields set by `--client-name`, `--client-version`, `--scope`, `--subject`, `--issuer`, `--client-id`, `--claims` (only those given). */
  readonly overrides: { readonly client: Partial<RequestContext['client']>; readonly auth: Partial<RequestContext['auth']> };
  /** The headers of `--context`, names lower-cased as the gate sees them. */
  readonly contextHeaders: Record<string, string>;
  /** The `--header`s, which replace context headers of the same name. */
  readonly headers: Record<string, string>;
}

export function readContextOptions(args: ParsedArgs, command: string): ContextOptions {
  const contextText = args.string('context');
  const context = contextText === undefined ? {} : parseContext(contextText, command);
  const client: { name?: string; version?: string } = {};
  const auth: { scopes?: string[]; subject?: string; issuer?: string; clientId?: string; claims?: Record<string, unknown> } = {};
  const name = args.string('client-name');
  if (name !== undefined) client.name = name;
  const version = args.string('client-version');
  if (version !== undefined) client.version = version;
  const scopeValues = args.strings('scope');
  if (scopeValues.length > 0) {
    // OAuth scope strings are space-separated, so a token's `scope` claim can be pasted as one value.
    const scopes = scopeValues.flatMap((value) => value.split(/\s+/)).filter((scope) => scope !== '');
    if (scopes.length === 0) throw new UsageError(`${command}: --scope needs a scope name, e.g. --scope beta`);
    auth.scopes = [...new Set(scopes)];
  }
  const subject = args.string('subject');
  if (subject !== undefined) auth.subject = subject;
  const issuer = args.string('issuer');
  if (issuer !== undefined) auth.issuer = issuer;
  const clientId = args.string('client-id');
  if (clientId !== undefined) auth.clientId = clientId;
  const claims = args.string('claims');
  if (claims !== undefined) auth.claims = parseObjectOption(claims, '--claims', '{"org": "acme"}', command);
  return {
    context,
    contextGiven: contextText !== undefined,
    overrides: { client, auth },
    contextHeaders: lowerCaseHeaders(context),
    headers: parseHeaders(args.strings('header'), command),
  };
}

function lowerCaseHeaders(context: RequestContextInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(context.request?.headers ?? {})) {
    if (raw === undefined) continue;
    const value = typeof raw === 'string' ? raw : raw.join(', ');
    const key = name.toLowerCase();
    headers[key] = Object.hasOwn(headers, key) ? `${headers[key]}, ${value}` : value;
  }
  return headers;
}

function parseContext(json: string, command: string): RequestContextInput {
  const value = parseOptionJson(json, '--context', command);
  const parsed = requestContextInputSchema.safeParse(value);
  if (parsed.success) return parsed.data as RequestContextInput;
  // One line: the issues zod found, each at its dot path inside the context.
  const issues = toPolicyIssues(parsed.error).map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  throw new UsageError(`${command}: --context is not a RequestContextInput {request, client, auth}: ${issues.join('; ')}`);
}

/**
 * The request's context before headers, endpoint and method: `--context`, then what the chosen
 * client sets (a profile's name, capabilities and protocol version; `--capabilities`), then the
 * explicit options. Each later source wins field by field.
 */
export function combineContext(options: ContextOptions, client: RequestContextInput): RequestContextInput {
  const { context, overrides } = options;
  return {
    request: { ...context.request, ...client.request },
    client: { ...context.client, ...client.client, ...overrides.client },
    auth: { ...context.auth, ...overrides.auth },
    ...(context.flags === undefined ? {} : { flags: context.flags }),
  };
}

/** `scopes: read, beta`, `subject: user-17`, `issuer: https://…`, … for the auth fields that are set. */
export function describeAuth(auth: RequestContextInput['auth']): string[] {
  const parts: string[] = [];
  if (auth?.scopes !== undefined) parts.push(`scopes: ${auth.scopes.length > 0 ? auth.scopes.join(', ') : 'none'}`);
  if (auth?.subject !== undefined) parts.push(`subject: ${auth.subject}`);
  if (auth?.issuer !== undefined) parts.push(`issuer: ${auth.issuer}`);
  if (auth?.clientId !== undefined) parts.push(`client id: ${auth.clientId}`);
  if (auth?.claims !== undefined) parts.push(`claims: ${JSON.stringify(auth.claims)}`);
  return parts;
}

/**
 * Who is asking: a named profile, raw capabilities, or (neither given) the client of `--context`,
 * else a client that declares no capabilities.
 */
export interface ClientChoice {
  readonly label: string;
  readonly profile?: ClientProfile | undefined;
  readonly input: RequestContextInput;
}

export function chooseClient(args: ParsedArgs, command: string, options: ContextOptions): ClientChoice {
  const name = args.string('client');
  const capabilities = args.string('capabilities');
  if (name !== undefined && capabilities !== undefined) {
    throw new UsageError(`${command}: pass either --client or --capabilities, not both`);
  }
  if (name !== undefined) return profileChoice(name, command);
  if (capabilities !== undefined) {
    return { label: '(from --capabilities)', input: { client: { capabilities: parseObjectOption(capabilities, '--capabilities', '{"sampling": {}}', command) } } };
  }
  // --context is taken as the library takes it: without client.capabilities they are undeclared.
  if (options.contextGiven) return { label: '(from --context)', input: {} };
  return { label: '(no --client)', input: { client: { capabilities: {} } } };
}

export function profileChoice(name: string, command: string): ClientChoice {
  let profile: ClientProfile;
  try {
    profile = findClientProfile(name);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  return { label: describeProfile(profile), profile, input: profileContext(profile) };
}

/** A full context input: the client's part, then the request's headers, endpoint and (unless `--context` fixed one) method. */
export function withRequest(client: RequestContextInput, headers: Record<string, string>, endpoint: string, method: string): RequestContextInput {
  return { ...client, request: { ...client.request, headers, endpoint, method: client.request?.method ?? method } };
}

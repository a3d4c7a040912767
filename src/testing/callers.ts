import fc from 'fast-check';
import { clientProfiles, type ClientProfile } from '../profiles/client-profiles.js';
import { createRequestContext, type RequestContext, type RequestContextInput } from '../core/context.js';

/** Who calls: what one MCP client sends — its `initialize` and the HTTP request around each message. */
export interface Caller {
  readonly client: {
    readonly name: string;
    readonly version: string;
    /** As declared in `initialize`; the SDK normalizes it (e.g. `elicitation: {}` means `{ form: {} }`). */
    readonly capabilities: Readonly<Record<string, unknown>>;
  };
  /** HTTP headers of every request (names as sent); empty for stdio. */
  readonly headers: Readonly<Record<string, string>>;
  /** URL path of the endpoint, e.g. `/mcp/admin`; `''` for stdio (no HTTP request at all). */
  readonly endpoint: string;
  /** What an auth middleware verified; the gate reads `claims.sub` as the subject and `claims.iss` as the issuer. */
  readonly auth?: CallerAuth | undefined;
}

/** What an auth middleware verified about a caller: OAuth client id, granted scopes, token claims. */
export interface CallerAuth {
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The domains callers() draws from; each defaults to `defaultCallerDomains` (or every client profile). */
export interface CallerOptions {
  /** Header name → values a caller may send; each header is sent or not at random. */
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  /** Endpoint paths; `''` stands for stdio. */
  readonly endpoints?: readonly string[];
  /** Real client profiles (default: every one in `mcp-client-capabilities`). */
  readonly profiles?: readonly ClientProfile[];
  /** Synthetic client names besides the profiles. */
  readonly clientNames?: readonly string[];
  readonly clientVersions?: readonly string[];
  readonly subjects?: readonly string[];
  /** Token issuers (`iss` claims) a caller's token may carry. */
  readonly issuers?: readonly string[];
  readonly scopes?: readonly string[];
}

/**
 * The values callers() draws headers, endpoints, client names, subjects and scopes from. Small on
 * purpose: random callers then collide often, which a decision cache must get exactly right.
 */
export const defaultCallerDomains = {
  headers: { 'x-canary': ['1', '0'], 'x-tool-version': ['1', '2'], 'x-tenant': ['acme', 'globex'] },
  endpoints: ['/mcp', '/mcp/admin', '/mcp/admin/users', ''],
  clientNames: ['cursor', 'claude-code', 'vscode', 'test-client'],
  clientVersions: ['1.0.0', '2.3.1', '0.9.0'],
  subjects: ['alice', 'bob'],
  issuers: ['https://id.example.com', 'https://partner.example.org'],
  scopes: ['read', 'write', 'admin'],
} as const;

/** Capability paths the arbitraries and the shipped examples use. */
export const capabilityPaths = ['sampling', 'roots', 'elicitation', 'elicitation.url', 'extensions.com.example/report-export'] as const;

/** Client capability sets: every shape the spec defines, small values, sometimes none at all. */
export function clientCapabilities(): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      sampling: fc.constantFrom({}, { tools: {} }),
      roots: fc.constantFrom({}, { listChanged: true }),
      elicitation: fc.constantFrom({}, { url: {} }, { form: {} }, { form: {}, url: {} }),
      extensions: fc.constantFrom({}, { 'com.example/report-export': {} }),
      tasks: fc.constant({ requests: { tools: { call: {} } } }),
    },
    { requiredKeys: [] },
  );
}

/** One caller per real client profile, with no headers, on `/mcp`: what `everyClientProfile` checks. */
export function profileCallers(profiles: readonly ClientProfile[] = clientProfiles): Caller[] {
  return profiles.map((profile) => ({
    client: { name: profile.id, version: '1.0.0', capabilities: structuredClone(profile.capabilities) as Record<string, unknown> },
    headers: {},
    endpoint: '/mcp',
  }));
}

/** Random callers: a real client profile or a synthetic client, headers, an endpoint, sometimes auth. */
export function callers(options: CallerOptions = {}): fc.Arbitrary<Caller> {
  const headerDomains = options.headers ?? defaultCallerDomains.headers;
  const profiles = options.profiles ?? clientProfiles;
  const synthetic = fc.record({
    name: fc.constantFrom(...(options.clientNames ?? defaultCallerDomains.clientNames)),
    capabilities: clientCapabilities(),
  });
  const fromProfile = fc.constantFrom(...profiles).map((profile) => ({
    name: profile.id,
    capabilities: structuredClone(profile.capabilities) as Record<string, unknown>,
  }));
  const headers = fc.record(Object.fromEntries(Object.entries(headerDomains).map(([name, values]) => [name, fc.constantFrom(...values)])), {
    requiredKeys: [],
  }) as fc.Arbitrary<Record<string, string>>;
  const auth = fc.record({
    clientId: fc.constantFrom('app-1', 'app-2'),
    scopes: fc.subarray([...(options.scopes ?? defaultCallerDomains.scopes)]),
    claims: fc.record(
      {
        sub: fc.constantFrom(...(options.subjects ?? defaultCallerDomains.subjects)),
        iss: fc.constantFrom(...(options.issuers ?? defaultCallerDomains.issuers)),
      },
      { requiredKeys: [] },
    ),
  });
  return fc
    .record({
      client: profiles.length > 0 ? fc.oneof(fromProfile, synthetic) : synthetic,
      version: fc.constantFrom(...(options.clientVersions ?? defaultCallerDomains.clientVersions)),
      headers,
      endpoint: fc.constantFrom(...(options.endpoints ?? defaultCallerDomains.endpoints)),
      auth: fc.option(auth, { nil: undefined }),
    })
    .map(({ client, version, headers: sent, endpoint, auth: verified }) => ({
      client: { name: client.name, version, capabilities: client.capabilities },
      // Over stdio there is no HTTP request, so nothing carries headers.
      headers: endpoint === '' ? {} : sent,
      endpoint,
      auth: verified,
    }));
}

/**
 * The RequestContext an adapter builds for this caller. Pass capabilities as the server saw
 * them (after the SDK's normalization) when comparing with a real server's decisions.
 */
export function toRequestContext(caller: Caller, method: string, capabilities: unknown = caller.client.capabilities): RequestContext {
  return createRequestContext(contextInput(caller, method, capabilities));
}

/** What a transport adds around the caller's own headers: every header actually sent, and the protocol version the gate reads. */
export interface Transmission {
  readonly headers: Readonly<Record<string, string>>;
  readonly protocolVersion: string | undefined;
}

/** The RequestContext a gate builds for this caller's request as a driver transmits it. */
export function transmittedContext(caller: Caller, method: string, capabilities: unknown, sent: Transmission): RequestContext {
  return createRequestContext(contextInput({ ...caller, headers: sent.headers }, method, capabilities, undefined, sent.protocolVersion));
}

function contextInput(caller: Caller, method: string, capabilities: unknown, sessionId?: string, protocolVersion?: string): RequestContextInput {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(caller.headers)) headers[name.toLowerCase()] = value;
  // The claims the adapters map (adapter/token-auth.ts): `sub` → subject, `iss` → issuer.
  const subject = caller.auth?.claims['sub'];
  const issuer = caller.auth?.claims['iss'];
  return {
    request: { method, headers, endpoint: caller.endpoint, sessionId, protocolVersion: protocolVersion ?? headers['mcp-protocol-version'] },
    client: { name: caller.client.name, version: caller.client.version, capabilities: capabilities as Record<string, unknown> | undefined },
    auth: {
      clientId: caller.auth?.clientId,
      subject: typeof subject === 'string' ? subject : undefined,
      issuer: typeof issuer === 'string' ? issuer : undefined,
      scopes: [...(caller.auth?.scopes ?? [])],
      claims: { ...(caller.auth?.claims ?? {}) },
    },
  };
}

/** Options of requestContexts: callers()' domains, plus methods, session ids and undeclared capabilities. */
export interface RequestContextOptions extends CallerOptions {
  /** Methods a context may carry (default `tools/list`). */
  readonly methods?: readonly string[];
  /** Session ids a context may carry, besides none. */
  readonly sessionIds?: readonly string[];
  /** Also produce contexts whose client declared no capabilities at all (stateless HTTP). */
  readonly withoutCapabilities?: boolean;
}

/** Frozen RequestContexts for testing policies directly (no server): callers seen by the core. */
export function requestContexts(options: RequestContextOptions = {}): fc.Arbitrary<RequestContext> {
  return fc
    .record({
      caller: callers(options),
      method: fc.constantFrom(...(options.methods ?? ['tools/list'])),
      sessionId: fc.constantFrom(undefined, ...(options.sessionIds ?? ['s1', 's2'])),
      declared: options.withoutCapabilities === false ? fc.constant(true) : fc.boolean(),
    })
    .map(({ caller, method, sessionId, declared }) => createRequestContext(contextInput(caller, method, declared ? caller.client.capabilities : undefined, sessionId)));
}

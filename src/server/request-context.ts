import type { AuthInfo, McpServer } from '@modelcontextprotocol/server';
import { createPlannedRequestContext, wholeContext, type ContextPlan, type RequestContext, type RequestContextInput } from '../core/context.js';
import type { RequestEnvelope } from '../adapter/envelope.js';
import { pathnameOf, sessionClientOf } from '../adapter/request-input.js';
import { authOfToken } from '../adapter/token-auth.js';

/** Where one request's facts come from; each field belongs to that request alone. */
export interface RequestSources {
  readonly method: string;
  /** The request's own `_meta` envelope; undefined for a 2025-era request. */
  readonly envelope: RequestEnvelope | undefined;
  /** The HTTP request it arrived in (absent on stdio and in-memory). */
  readonly httpRequest: Request | undefined;
  readonly authInfo: AuthInfo | undefined;
  readonly sessionId: string | undefined;
}

/**
 * Translates one request into the core's frozen RequestContext. Client name, version and
 * capabilities have one source per protocol era, as the SDK's own capability checks read them:
 * a 2026-07-28 request speaks for itself through its envelope; a 2025-era session keeps what
 * its `initialize` declared (the SDK keeps it per server instance), and a `_meta` that claims
 * other capabilities on a later request of that session is ignored. A stateless 2025 request has
 * neither, and its capabilities stay undefined (`onMissingCapabilities` decides).
 */
export function buildRequestContext(sources: RequestSources, server: McpServer, plan: ContextPlan = wholeContext): RequestContext {
  const { httpRequest, authInfo } = sources;
  const envelope = servesModernEra(sources, server) ? sources.envelope : undefined;
  // Only the headers the plan names: a session's whole context, which a new policy may need, is
  // rebuilt from its latest sources when that policy arrives (Installation#wholeContext).
  const headers = httpRequest === undefined ? {} : headersOf(httpRequest.headers, plan);
  const input: RequestContextInput = {
    request: {
      method: sources.method,
      headers,
      endpoint: httpRequest === undefined ? '' : pathnameOf(httpRequest.url),
      sessionId: sources.sessionId,
      protocolVersion: envelope?.protocolVersion ?? httpRequest?.headers.get('mcp-protocol-version') ?? undefined,
    },
    client: envelope === undefined ? sessionClientOf(server.server) : { name: envelope.clientName, version: envelope.clientVersion, capabilities: envelope.capabilities },
    auth: authOfToken(authInfo),
  };
  return createPlannedRequestContext(input, plan);
}

const headerToken = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** The headers a plan asks for; fetch's `Headers` already lower-cases names and joins repeats. */
function headersOf(source: Headers, plan: ContextPlan): Record<string, string> {
  const headers: Record<string, string> = {};
  if (plan.headers === 'all') {
    source.forEach((value, name) => (headers[name] = value));
    return headers;
  }
  for (const name of plan.headers) {
    // `get` throws for a name no header can have (a rule may read `request.headers.x y`).
    if (!headerToken.test(name)) continue;
    const value = source.get(name);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

/** The first revision whose requests carry the `_meta` envelope; later revisions sort after it. */
const firstModernProtocolVersion = '2026-07-28';

/**
 * Whether the request is served in the 2026-07-28 era, decided as the SDK decides it: the era is
 * the server instance's, bound by a 2025 `initialize` (legacy) or by `createMcpHandler` (modern).
 * The SDK lifts envelope keys off any request, so a 2025-era request may carry some; they count
 * only in the modern era. createMcpHandler's pre-dispatch checks run before it binds the
 * instance: then the request is modern exactly when its `_meta` claims a protocol version,
 * which is how the SDK routed it here.
 */
function servesModernEra(sources: RequestSources, server: McpServer): boolean {
  // Deprecated for reading client identity, still the SDK's documented record of the instance's era.
  const negotiated = server.server.getNegotiatedProtocolVersion();
  if (negotiated !== undefined) return negotiated >= firstModernProtocolVersion;
  return sources.envelope?.protocolVersion !== undefined;
}

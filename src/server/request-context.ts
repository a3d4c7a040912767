import type { AuthInfo, McpServer } from '@modelcontextprotocol/server';
import { createRequestContext, type RequestContext } from '../core/context.js';
import type { RequestEnvelope } from '../adapter/envelope.js';

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
 * Translates one request into the core's frozen RequestContext. A 2026-07-28 request speaks for
 * itself through its envelope; only a 2025-era request (no envelope) falls back to what its
 * session's `initialize` declared, which the SDK keeps per server instance. A stateless 2025
 * request has neither, and its capabilities stay undefined (`onMissingCapabilities` decides).
 */
export function buildRequestContext(sources: RequestSources, server: McpServer): RequestContext {
  const { envelope, httpRequest, authInfo } = sources;
  const headers: Record<string, string> = {};
  httpRequest?.headers.forEach((value, name) => (headers[name] = value));
  const claims = authInfo?.extra;
  const subject = claims?.['sub'];
  const legacyClient = envelope === undefined ? server.server.getClientVersion() : undefined;
  return createRequestContext({
    request: {
      method: sources.method,
      headers,
      endpoint: httpRequest === undefined ? '' : pathnameOf(httpRequest.url),
      sessionId: sources.sessionId,
      protocolVersion: envelope?.protocolVersion ?? headers['mcp-protocol-version'],
    },
    client:
      envelope === undefined
        ? {
            name: legacyClient?.name,
            version: legacyClient?.version,
            capabilities: server.server.getClientCapabilities() as Record<string, unknown> | undefined,
          }
        : { name: envelope.clientName, version: envelope.clientVersion, capabilities: envelope.capabilities },
    auth: {
      clientId: authInfo?.clientId,
      subject: typeof subject === 'string' ? subject : undefined,
      scopes: authInfo?.scopes ?? [],
      claims: claims ?? {},
    },
  });
}

function pathnameOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createRequestContext, type RequestContext } from '../core/context.js';
import type { SdkExtra } from './server-internals.js';

/**
 * Translates one SDK request into the core's frozen RequestContext. Headers and the endpoint come
 * from the transport's request info (absent on stdio and in-memory); client name, version and
 * capabilities from this server's `initialize`, which a stateless HTTP server never sees.
 */
export function buildRequestContext(method: string, extra: SdkExtra, server: Server): RequestContext {
  const requestInfo = extra.requestInfo;
  const headers: Record<string, string> = {};
  if (requestInfo) {
    for (const [name, value] of Object.entries(requestInfo.headers)) {
      if (typeof value === 'string') headers[name] = value;
      else if (Array.isArray(value)) headers[name] = value.join(', ');
    }
  }
  const clientVersion = server.getClientVersion();
  const authInfo = extra.authInfo;
  const claims = authInfo?.extra;
  const subject = claims?.['sub'];
  return createRequestContext({
    request: {
      method,
      headers,
      endpoint: requestInfo?.url?.pathname ?? '',
      sessionId: extra.sessionId,
      protocolVersion: headerValue(headers, 'mcp-protocol-version'),
    },
    client: {
      name: clientVersion?.name,
      version: clientVersion?.version,
      capabilities: server.getClientCapabilities() as Record<string, unknown> | undefined,
    },
    auth: {
      clientId: authInfo?.clientId,
      subject: typeof subject === 'string' ? subject : undefined,
      scopes: authInfo?.scopes ?? [],
      claims: claims ?? {},
    },
  });
}

function headerValue(headers: Record<string, string>, lowerCaseName: string): string | undefined {
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === lowerCaseName) return value;
  return undefined;
}

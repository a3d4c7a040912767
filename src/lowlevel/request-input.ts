import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestContextInput } from '../core/context.js';
import { authOfToken } from '../adapter/token-auth.js';
import type { ServerExtra } from './in-process-upstream.js';

/**
 * What a policy reads of one request to a low-level Server: headers and the endpoint from the
 * transport's request info (none on stdio and in memory), the session id, the verified token,
 * and the client's name, version and capabilities from this server's `initialize` (none for a
 * stateless HTTP request, which `onMissingCapabilities` decides about).
 */
export function contextInputOf(method: string, extra: ServerExtra, server: Server): RequestContextInput {
  const headers = extra.requestInfo?.headers ?? {};
  const protocolVersion = headers['mcp-protocol-version'];
  const clientVersion = server.getClientVersion();
  return {
    request: {
      method,
      headers,
      endpoint: (extra.requestInfo as { url?: URL } | undefined)?.url?.pathname ?? '',
      sessionId: extra.sessionId,
      protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : undefined,
    },
    client: { name: clientVersion?.name, version: clientVersion?.version, capabilities: server.getClientCapabilities() as Record<string, unknown> | undefined },
    auth: authOfToken(extra.authInfo),
  };
}

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestContextInput } from '../core/context.js';
import { sessionClientOf } from '../adapter/request-input.js';
import { authOfToken } from '../adapter/token-auth.js';
import type { ServerExtra } from './in-process-upstream.js';

/**
 * What a policy reads of one request to a low-level Server: headers and the endpoint from the
 * transport's request info (none on stdio and in memory), the session id, the verified token,
 * and the client's name, version and capabilities from this server's `initialize` (none for a
 * stateless HTTP request, which `onMissingCapabilities` decides about).
 */
export function contextInputOf(method: string, extra: ServerExtra, server: Server, transportRequest?: (id: unknown) => unknown): RequestContextInput {
  const info = (extra.requestInfo ?? transportRequest?.(extra.requestId)) as { headers?: unknown; url?: unknown } | undefined;
  const headers = headersOf(info?.headers);
  const protocolVersion = headers['mcp-protocol-version'];
  return {
    request: {
      method,
      headers,
      endpoint: endpointOf(info?.url),
      sessionId: extra.sessionId,
      protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : undefined,
    },
    client: sessionClientOf(server),
    auth: authOfToken(extra.authInfo),
  };
}

type HeaderRecord = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The SDK's own transports give a Node header record; fastmcp's HTTP server (mcp-proxy 6.7, on
 * the v2 SDK's web-standard transport) gives the fetch `Request` itself, whose `headers` is a
 * `Headers` (names already lower-cased) and whose `url` is a string.
 */
function headersOf(headers: unknown): HeaderRecord {
  if (headers === null || typeof headers !== 'object') return {};
  // A fetch Headers of any implementation (@hono/node-server brings its own Request).
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).entries === 'function') return Object.fromEntries((headers as Headers).entries());
  return headers as HeaderRecord;
}

function endpointOf(url: unknown): string {
  if (url instanceof URL) return url.pathname;
  return typeof url === 'string' && URL.canParse(url) ? new URL(url).pathname : '';
}

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createRequestContext, type RequestContext } from '../core/context.js';
import type { SdkExtra } from './server-internals.js';

/**
 * Returns a context builder for one server. Without request info and auth (stdio, in-memory),
 * every request of a method on a session yields the same context, so the last one per method is
 * reused while all of its inputs are the identical objects; building costs more than the policy.
 */
export function createContextBuilder(server: Server): (method: string, extra: SdkExtra) => RequestContext {
  const lastByMethod = new Map<string, { inputs: readonly unknown[]; context: RequestContext }>();
  return function contextFor(method, extra) {
    if (extra.requestInfo !== undefined || extra.authInfo !== undefined) return buildRequestContext(method, extra, server);
    const inputs = [extra.sessionId, server.getClientVersion(), server.getClientCapabilities()];
    const last = lastByMethod.get(method);
    if (last && last.inputs.every((input, index) => input === inputs[index])) return last.context;
    const context = buildRequestContext(method, extra, server);
    lastByMethod.set(method, { inputs, context });
    return context;
  };
}

/**
 * Translates one SDK request into the core's frozen RequestContext. Headers and the endpoint come
 * from the transport's request info (absent on stdio and in-memory); client name, version and
 * capabilities from this server's `initialize`, which a stateless HTTP server never sees.
 */
export function buildRequestContext(method: string, extra: SdkExtra, server: Server): RequestContext {
  const requestInfo = extra.requestInfo;
  // createRequestContext lower-cases names and joins repeated headers: no copy needed here.
  const headers = requestInfo?.headers ?? {};
  const protocolVersion = headers['mcp-protocol-version'];
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
      protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : undefined,
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

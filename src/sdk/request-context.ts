import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createPlannedRequestContext, wholeContext, type ContextPlan, type RequestContext } from '../core/context.js';
import { authOfToken } from '../adapter/token-auth.js';
import type { SdkExtra } from './server-internals.js';

/**
 * Returns a context builder for one server. Without request info and auth (stdio, in-memory),
 * every request of a method on a session yields the same context, so the last one per method is
 * reused while all of its inputs (the plan among them) are the identical objects; building costs
 * more than the policy.
 */
export function createContextBuilder(server: Server): (method: string, extra: SdkExtra, plan?: ContextPlan) => RequestContext {
  const lastByMethod = new Map<string, { inputs: readonly unknown[]; context: RequestContext }>();
  return function contextFor(method, extra, plan = wholeContext) {
    if (extra.requestInfo !== undefined || extra.authInfo !== undefined) return buildRequestContext(method, extra, server, plan);
    const inputs = [extra.sessionId, server.getClientVersion(), server.getClientCapabilities(), plan];
    const last = lastByMethod.get(method);
    if (last && last.inputs.every((input, index) => input === inputs[index])) return last.context;
    const context = buildRequestContext(method, extra, server, plan);
    lastByMethod.set(method, { inputs, context });
    return context;
  };
}

/**
 * Translates one SDK request into the core's frozen RequestContext, holding what `plan` asks
 * for (context-plan.ts). Headers and the endpoint come from the transport's request info
 * (absent on stdio and in-memory); client name, version and capabilities from this server's
 * `initialize`, which a stateless HTTP server never sees. Node delivers header names
 * lower-cased (`IncomingMessage.headers`), which a plan naming headers relies on.
 */
export function buildRequestContext(method: string, extra: SdkExtra, server: Server, plan: ContextPlan = wholeContext): RequestContext {
  const requestInfo = extra.requestInfo;
  // The core lower-cases names and joins repeated headers, or picks the few a plan names: no copy here.
  const headers = requestInfo?.headers ?? {};
  const protocolVersion = headers['mcp-protocol-version'];
  const clientVersion = server.getClientVersion();
  return createPlannedRequestContext(
    {
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
      auth: authOfToken(extra.authInfo),
    },
    plan,
  );
}

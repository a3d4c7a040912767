import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { relayedError } from '../wire/relayed-error.js';
import type { UpstreamLink } from './supervised-upstream.js';

/**
 * Routes what an upstream session sends on its own to its downstream session only: requests
 * (sampling, elicitation, roots) go to the client and their answers back upstream;
 * notifications (logging, progress, list_changed) go to the client, resources/updated only for
 * a resource the client may see.
 */
export function relayUpstreamToDownstream(
  link: UpstreamLink,
  server: Server,
  /** Downstream requests now waiting for the upstream: where an upstream request during one belongs. */
  forwarding: ReadonlySet<string | number>,
  timeoutMs: number,
): void {
  const { client } = link;
  client.fallbackRequestHandler = async (upstreamRequest, extra) => {
    // On one stream with the downstream request it serves, when it can only be that one.
    const [only, ...others] = forwarding;
    try {
      return await server.request({ method: upstreamRequest.method, params: upstreamRequest.params } as never, ResultSchema, {
        signal: extra.signal,
        timeout: timeoutMs,
        ...(only !== undefined && others.length === 0 ? { relatedRequestId: only } : {}),
      });
    } catch (error) {
      throw relayedError(error);
    }
  };
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/resources/updated') {
      const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri !== 'string' || link.connection === undefined || !link.connection.showsResource(uri)) return;
    }
    await server.notification(notification as never);
  };
}

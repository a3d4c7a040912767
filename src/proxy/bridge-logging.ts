// Log messages of a bridged session. A 2026-07-28 server sends `notifications/message` only for a
// request whose envelope names a log level, on that request's own stream (bridge-upstream.ts puts
// the level the session set there). The stateless transport hands them on without saying which
// request they came with, so they go to the session on the stream of the request being forwarded
// when there is only one, as the relay does with the upstream's requests (upstream-relay.ts); with
// several under way, on the session's own stream.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { UpstreamLink } from './supervised-upstream.js';

/** Wraps the relay's notification handler of a bridged upstream session (installed by relayUpstreamToDownstream first). */
export function relayLogOnRequestStream(link: UpstreamLink, server: Server, forwarding: ReadonlySet<string | number>): void {
  const relayed = link.client.fallbackNotificationHandler;
  link.client.fallbackNotificationHandler = async (notification) => {
    const [only, ...others] = forwarding;
    if (notification.method !== 'notifications/message' || only === undefined || others.length > 0) return relayed?.(notification);
    await server.notification(notification as never, { relatedRequestId: only });
  };
}

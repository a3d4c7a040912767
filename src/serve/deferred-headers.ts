import type { ServerResponse } from 'node:http';

/**
 * How long an event-stream answer to a POST may hold its headers back, waiting for its first event
 * (most answers: a tool's result) to go out with them.
 */
export const headerHoldMs = 50;

/**
 * The SDK transport answers every POST request with an event stream, and @hono/node-server (under
 * it) sends the stream's headers on their own before the first event: one more write, and one more
 * wake-up of the client, per request. With this, the headers wait for the first event (Node sends
 * them together) for up to `headerHoldMs`; after that they go on their own, as before, so a long
 * call without progress still shows its client an answer in progress (an HTTP client gives up on
 * headers that do not come: undici after 300 s).
 */
export function holdHeadersForFirstEvent(response: ServerResponse): void {
  const flush = response.flushHeaders;
  response.flushHeaders = () => {
    // `headersSent` is already true here (writeHead stored them); what tells whether they went
    // out since is the socket's count of bytes sent (a kept-alive socket's count goes on from
    // earlier answers).
    const sentBefore = response.socket?.bytesWritten;
    setTimeout(() => {
      if (response.writable && response.socket?.bytesWritten === sentBefore) flush.call(response);
    }, headerHoldMs).unref();
  };
}

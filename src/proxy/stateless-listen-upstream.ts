// The upstream side of a 2026-07-28 `subscriptions/listen` in `mcp-gate proxy`: one POST whose
// answer is a long-lived event stream. Read here with fetch rather than through the SDK's client
// transport, so the proxy sees the upstream's answer as it was written (its HTTP status, its
// messages with their members in the upstream's order) and knows exactly when the stream ends.
import { protocolVersionMetaKey } from '../adapter/envelope.js';
import type { EnvelopeMeta } from './stateless-upstream.js';

/** Where a listen stream's messages name their subscription (the listen request's id). */
export const subscriptionIdMetaKey = 'io.modelcontextprotocol/subscriptionId';

/** One JSON-RPC message of the upstream's answer, parsed but otherwise as it came. */
export type UpstreamMessage = Readonly<Record<string, unknown>>;

/** The listen request as it goes upstream (stateless-listen-filter.ts's gated request). */
export interface UpstreamListenRequest {
  readonly id: string | number;
  readonly params: Readonly<Record<string, unknown>> & { readonly _meta: EnvelopeMeta };
}

/** Where listen requests are opened: an upstream URL (openUpstreamListen), or a spawned upstream's stdio (stdio-stateless-upstream.ts). */
export type ListenUpstream = URL | { openListen(request: UpstreamListenRequest, signal: AbortSignal, timeoutMs: number): Promise<UpstreamListenAnswer | undefined> };

/** How the upstream answered the listen request. */
export type UpstreamListenAnswer =
  /** Not an event stream: the JSON-RPC answer to the request (an error, as a rule) with the HTTP status it came with. */
  | { readonly kind: 'answer'; readonly status: number; readonly message: UpstreamMessage }
  /** The event stream is open: `messages` yields each message until the stream ends (or `close`). */
  | { readonly kind: 'stream'; readonly messages: AsyncIterable<UpstreamMessage>; close(): void };

/** The largest event the proxy reads from a listen stream (the SDKs' own limit for a message). */
const maxEventBytes = 4 * 1024 * 1024;

/**
 * Sends the listen request upstream and waits, at most `timeoutMs`, for the answer's headers
 * (a JSON answer: for its body too). Undefined when the upstream answered no JSON-RPC (down, a
 * proxy's 502, an HTML page): the caller answers as for any request the upstream cannot serve.
 * `signal` (the downstream request closing) aborts the request, and then the stream.
 */
export async function openUpstreamListen(
  url: URL,
  headers: Readonly<Record<string, string>>,
  request: UpstreamListenRequest,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<UpstreamListenAnswer | undefined> {
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(onAbort, timeoutMs);
  const version = request.params._meta[protocolVersionMetaKey];
  let streaming = false;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      // The 2026-07-28 standard headers a client derives from the body (the SDK's transport sets the same).
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(typeof version === 'string' ? { 'mcp-protocol-version': version } : {}),
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: request.id, method: 'subscriptions/listen', params: request.params }),
      signal: abort.signal,
      redirect: 'error',
    });
    if (response.ok && response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream' && response.body !== null) {
      streaming = true;
      return { kind: 'stream', messages: readEvents(response.body, abort.signal), close: onAbort };
    }
    const message = parseMessage(await response.text());
    const answers = message !== undefined && ('error' in message || 'result' in message) && message['id'] === request.id;
    return answers ? { kind: 'answer', status: response.status, message } : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    // An open stream is closed with the downstream request; any other answer is complete.
    if (!streaming) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The JSON-RPC messages of an event stream (the `data` of each `message` event); comments such
 * as keep-alives, other events and data that is no JSON object are skipped. Ends when the
 * stream ends, fails or is aborted, and at an event larger than `maxEventBytes` (a broken
 * upstream, not a notification).
 */
async function* readEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<UpstreamMessage> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const release = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', release, { once: true });
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value.replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffered.indexOf('\n\n')) !== -1) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const message = messageOf(event);
        if (message !== undefined) yield message;
      }
      if (buffered.length > maxEventBytes) return;
    }
  } catch {
    return; // the stream failed or was aborted: it ended
  } finally {
    signal.removeEventListener('abort', release);
    release();
  }
}

function messageOf(event: string): UpstreamMessage | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of event.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'data') data.push(value);
  }
  return type === 'message' && data.length > 0 ? parseMessage(data.join('\n')) : undefined;
}

function parseMessage(text: string): UpstreamMessage | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && (parsed as UpstreamMessage)['jsonrpc'] === '2.0'
      ? (parsed as UpstreamMessage)
      : undefined;
  } catch {
    return undefined;
  }
}

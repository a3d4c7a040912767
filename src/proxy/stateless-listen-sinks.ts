// Where a relayed `subscriptions/listen` stream goes downstream (stateless-listen.ts decides what
// goes; a sink only writes it): over HTTP, the listen request's response, an event stream as the
// v2 SDK server writes one; over stdio, JSON-RPC lines among the connection's other messages, as
// `serveStdio` of `@modelcontextprotocol/server` writes them (the stream's messages carry the
// subscription id, so they need no stream of their own).
import type { ServerResponse } from 'node:http';
import type { UpstreamMessage } from './stateless-listen-upstream.js';

export interface ListenSink {
  /** Aborted when the listener goes: its HTTP request closes; over stdio, its `notifications/cancelled` or the end of the connection. */
  readonly gone: AbortSignal;
  /** Whether anything has been written: after that, the listen request can no longer be answered with a plain error. */
  readonly started: boolean;
  /** The one answer to the listen request instead of a stream (a refusal, or the upstream's error with its HTTP status). */
  answer(message: UpstreamMessage, status: number): void;
  /** The stream begins. */
  open(): void;
  /** One message of the stream (the acknowledgement, a change, the closing answer). */
  send(message: UpstreamMessage): void;
  /** The stream is idle: keep intermediaries from closing it. */
  keepAlive(): void;
  /** The stream ends, whichever side ended it. */
  end(): void;
}

/** The listen stream as the HTTP response to the listen request. */
export class HttpListenSink implements ListenSink {
  readonly #response: ServerResponse;
  readonly #gone = new AbortController();

  constructor(response: ServerResponse) {
    this.#response = response;
    response.on('close', () => this.#gone.abort());
    if (response.destroyed) this.#gone.abort(); // gone before it could be heard
  }

  get gone(): AbortSignal {
    return this.#gone.signal;
  }

  get started(): boolean {
    return this.#response.headersSent;
  }

  answer(message: UpstreamMessage, status: number): void {
    this.#response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
  }

  open(): void {
    this.#response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    this.#response.flushHeaders();
  }

  send(message: UpstreamMessage): void {
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  keepAlive(): void {
    this.#write(': keepalive\n\n');
  }

  end(): void {
    if (!this.#response.writableEnded) this.#response.end();
  }

  #write(frame: string): void {
    if (!this.#response.writableEnded && !this.#response.destroyed) this.#response.write(frame);
  }
}

/**
 * The listen stream as lines on the proxy's stdio. There is no stream to end: one that ends
 * without the upstream's closing answer (the upstream dropped it, or never acknowledged it) is
 * ended for the listener with the stdio binding's server-side teardown, a `notifications/cancelled`
 * naming the listen request (the v2 client settles the subscription on it).
 */
export class StdioListenSink implements ListenSink {
  readonly #id: string | number;
  readonly #write: (message: UpstreamMessage) => void;
  readonly #gone: AbortSignal;
  #started = false;
  #answered = false;
  #ended = false;

  constructor(id: string | number, write: (message: UpstreamMessage) => void, gone: AbortSignal) {
    this.#id = id;
    this.#write = write;
    this.#gone = gone;
  }

  get gone(): AbortSignal {
    return this.#gone;
  }

  get started(): boolean {
    return this.#started;
  }

  answer(message: UpstreamMessage): void {
    this.send(message);
    this.#ended = true;
  }

  open(): void {}

  send(message: UpstreamMessage): void {
    if (this.#ended || this.#gone.aborted) return;
    this.#started = true;
    if (!('method' in message) && message['id'] === this.#id) this.#answered = true;
    this.#write(message);
  }

  /** Nothing between the two processes closes an idle pipe. */
  keepAlive(): void {}

  end(): void {
    if (!this.#answered) this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: this.#id, reason: 'The upstream ended the subscription' } });
    this.#ended = true;
  }
}

// One `subscriptions/listen` opened on a spawned upstream's stdio (stdio-stateless-upstream.ts):
// what `openUpstreamListen` (stateless-listen-upstream.ts) is for an upstream URL. Over stdio the
// stream is no stream of its own: the process stamps the acknowledgement and each change with the
// subscription id (the listen request's id on its stdio), answers the listen request to close it
// gracefully, and sends `notifications/cancelled` naming it to end it (`serveStdio`'s listen router).
import { subscriptionIdMetaKey, type UpstreamListenAnswer, type UpstreamMessage } from './stateless-listen-upstream.js';
import { ladderStatus } from './stateless-answers.js';

/** The messages of one listen on the process, in order, until it ends. */
export class SpawnedListen {
  /** The listen request's id downstream: the answer that ends it is relayed under it. */
  readonly #downstreamId: string | number;
  readonly #queue: UpstreamMessage[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  constructor(downstreamId: string | number) {
    this.#downstreamId = downstreamId;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** A message of the process for this listen: its answer (under the downstream id, and it ends the listen) or a notification. */
  deliver(message: UpstreamMessage): void {
    if (this.#ended) return;
    const answer = !('method' in message);
    this.#queue.push(answer ? { ...message, id: this.#downstreamId } : message);
    if (answer) this.#ended = true;
    this.#wakeUp();
  }

  end(): void {
    this.#ended = true;
    this.#wakeUp();
  }

  /**
   * How the process answered, once its first message for this listen came (at most `timeoutMs`):
   * an answer before any acknowledgement is the listen's answer, with the HTTP status a
   * 2026-07-28 server gives that error; anything else opens the stream. Undefined when the
   * listen ended (the process exited) before anything came.
   */
  async opened(timeoutMs: number, close: () => void): Promise<UpstreamListenAnswer | undefined> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#next(), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const first = this.#queue[0];
    if (first === undefined) {
      if (!this.#ended) return { kind: 'stream', messages: this.#messages(), close }; // the relay's own acknowledgement wait runs on
      return undefined;
    }
    if (!('method' in first)) {
      const code = (first['error'] as { code?: unknown } | undefined)?.code;
      return { kind: 'answer', status: typeof code === 'number' ? (ladderStatus[code] ?? 200) : 200, message: first };
    }
    return { kind: 'stream', messages: this.#messages(), close };
  }

  async *#messages(): AsyncGenerator<UpstreamMessage> {
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) yield message;
      else if (this.#ended) return;
      else await this.#next();
    }
  }

  #next(): Promise<void> {
    if (this.#queue.length > 0 || this.#ended) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** The upstream id of the listen a notification of the process belongs to (its subscription id stamp), if any. */
export function subscriptionOf(message: UpstreamMessage): unknown {
  const params = message['params'] as { _meta?: Record<string, unknown>; requestId?: unknown } | undefined;
  // The process's teardown names the listen request as any cancellation does.
  if (message['method'] === 'notifications/cancelled') return params?.requestId;
  return params?._meta?.[subscriptionIdMetaKey];
}

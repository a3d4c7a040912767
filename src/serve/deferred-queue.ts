/** A consumer run after the current I/O callbacks, in batches: see `deferToIdle`. */
export interface DeferredQueue<T> {
  (item: T): void;
  /** Consumes everything queued now, synchronously (before closing what `consume` writes to). */
  flush(): void;
}

/**
 * Queues items and consumes them in a `setImmediate`, after the answer of the request that
 * produced them has been handed to its socket. The decision log uses it so that formatting and
 * writing a line — on every decided call but never on a name the server does not have — is not
 * on the response path, where its time told a hidden tool from an unknown name: 165–190 µs over
 * loopback before, 30–45 µs after; with the event's explanation computed here too rather than in
 * the request (decision-events.ts), within the noise of two unknown names
 * (bench/decision-log-timing.ts). A throwing `consume` goes to `onError`; the rest still run.
 */
export function deferToIdle<T>(consume: (item: T) => void, onError: (error: unknown) => void): DeferredQueue<T> {
  let queued: T[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const batch = queued;
    queued = [];
    for (const item of batch) {
      try {
        consume(item);
      } catch (error) {
        onError(error);
      }
    }
  }

  const enqueue = function enqueueDeferred(item: T): void {
    queued.push(item);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        if (scheduled) flush();
      });
    }
  } as DeferredQueue<T>;
  enqueue.flush = flush;
  return enqueue;
}

// How long what `serve` and `proxy` run lives: a stdio session, stopped by the client closing
// stdin or by the command's abort signal, and waits with a timeout. Loaded with the SDK.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Readable, Writable } from 'node:stream';

/** What is running: `done` settles when it should stop, `close` stops it. */
export interface Serving {
  readonly done: Promise<void>;
  close(): Promise<void>;
}

/** Settles once `signal` aborts (at once if it has). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Connects `server` to stdin/stdout; it is done when the client closes stdin, as with any stdio server, or `signal` aborts. */
export async function serveOverStdio(
  server: { connect(transport: Transport): Promise<void>; close(): Promise<void> },
  stdio: { readonly input: Readable; readonly output: Writable },
  signal: AbortSignal,
): Promise<Serving> {
  const transport = new StdioServerTransport(stdio.input, stdio.output);
  const ended = new Promise<void>((resolve) => {
    stdio.input.once('end', resolve);
    stdio.input.once('close', resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  return { done: Promise.race([ended, aborted(signal)]), close: () => server.close() };
}

/** `promise`, or a rejection with `message` after `timeoutMs`; the timer never outlives it. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

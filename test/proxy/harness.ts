import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { run } from '../../src/cli/run.js';
import { repositoryRoot, waitFor } from '../serve/harness.js';

export { connectClient, repositoryRoot, waitFor } from '../serve/harness.js';

/** server-everything from npm, as a user would give it to --upstream-cmd. */
export const everythingCommand = `${process.execPath} node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`;

export interface RunningProxy {
  readonly url: URL;
  stderr(): string;
  /** Aborts as SIGINT would and resolves with the exit code `run` returned. */
  stop(): Promise<number>;
}

/** `mcp-gate proxy …` through `run` on a free port; resolves once it listens (the startup check can take a while on a loaded machine). */
export async function startProxy(argv: readonly string[]): Promise<RunningProxy> {
  const err: string[] = [];
  const controller = new AbortController();
  const finished = run(['proxy', '--port', '0', ...argv], {
    cwd: repositoryRoot,
    stdout: () => undefined,
    stderr: (text) => err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
    signal: controller.signal,
  });
  let code: number | undefined;
  void finished.then((value) => (code = value));
  const url = await waitFor(
    '"listening on" on stderr',
    () => {
      if (code !== undefined) throw new Error(`proxy exited ${code} before listening:\n${err.join('')}`);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err.join(''));
      return match ? new URL(match[1]!) : undefined;
    },
    30_000,
  );
  return {
    url,
    stderr: () => err.join(''),
    async stop() {
      controller.abort();
      return finished;
    },
  };
}

/**
 * Records every JSON-RPC message a client receives, so a test can compare answers as they came
 * over the wire: the error's code and message, or the result, exactly.
 */
export function recordReceived<T extends Transport>(transport: T): WireRecorder & { transport: T } {
  const received: JSONRPCMessage[] = [];
  const sentIds: unknown[] = [];
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if ('method' in message && 'id' in message) sentIds.push(message.id);
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      received.push(message);
      deliver?.(message, extra);
    };
    await start();
  };
  return {
    transport,
    lastRequestId: () => sentIds.at(-1),
    notifications: (method) => received.filter((message) => 'method' in message && !('id' in message) && message.method === method) as { params?: Record<string, unknown> }[],
    answerTo(id) {
      const message = received.find((candidate) => 'id' in candidate && candidate.id === id && ('result' in candidate || 'error' in candidate));
      if (message === undefined) return undefined;
      const { id: _id, ...rest } = message as Record<string, unknown>;
      return JSON.stringify(rest);
    },
  };
}

export interface WireRecorder {
  /** The id of the last request sent. */
  lastRequestId(): unknown;
  /** The notifications of one method as the transport received them, before the SDK saw them. */
  notifications(method: string): { params?: Record<string, unknown> }[];
  /** The answer to request `id` as received, without its id. */
  answerTo(id: unknown): string | undefined;
}

/** Sends one request and returns the answer's bytes (result or error, id left out) as the transport received them. */
export async function rawAnswer(client: Client, recorder: WireRecorder, method: string, params: Record<string, unknown>): Promise<string> {
  const sending = client.request({ method, params } as never, ResultSchema).catch(() => undefined);
  const id = recorder.lastRequestId();
  await sending;
  const answer = recorder.answerTo(id);
  if (answer === undefined) throw new Error(`no answer recorded for ${method} (request id ${String(id)})`);
  return answer;
}

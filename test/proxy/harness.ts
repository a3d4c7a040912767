import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { repositoryRoot, startListening } from '../serve/harness.js';

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
export function startProxy(argv: readonly string[]): Promise<RunningProxy> {
  return startListening('proxy', argv, repositoryRoot, 30_000);
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

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export type ProgressListener = (progress: { progress: number; total?: number; message?: string }) => void;

/**
 * Routes the upstream's progress notifications to the downstream request they belong to. The
 * SDK's own `onprogress` drops an update that arrives just before the response (its handler
 * runs a microtask after the response removed the token: the last step of a long call was lost
 * in 2 of 4 runs of test/proxy/everything.test.ts), so the proxy gives each forwarded request a token of its own and
 * keeps it until the answer has gone downstream.
 */
export class ProgressRelay {
  readonly #listeners = new Map<string, ProgressListener>();
  #next = 0;

  constructor(client: Client) {
    client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
      const { progressToken, ...progress } = notification.params;
      this.#listeners.get(String(progressToken))?.(progress as Parameters<ProgressListener>[0]);
    });
  }

  /** `params` with a fresh upstream progress token; `release` forgets it. */
  track(params: Record<string, unknown> | undefined, listener: ProgressListener): { params: Record<string, unknown>; release(): void } {
    const token = `mcp-gate-progress-${++this.#next}`;
    this.#listeners.set(token, listener);
    const meta = (params?.['_meta'] ?? {}) as Record<string, unknown>;
    return { params: { ...params, _meta: { ...meta, progressToken: token } }, release: () => this.#listeners.delete(token) };
  }
}

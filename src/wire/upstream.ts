import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { relayedError } from './relayed-error.js';

/** How long a forwarded request may take; a long tool call should report progress and be cancelled by its client rather than time out here. */
export const defaultUpstreamTimeoutMs = 10 * 60_000;

export interface ForwardOptions {
  /** Aborted when the downstream client cancels; the SDK then sends `notifications/cancelled` upstream. */
  readonly signal?: AbortSignal | undefined;
  /** Receives the upstream's progress for this request (the SDK gives the upstream its own token). */
  readonly onprogress?: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * Sends one request upstream as it is and returns the upstream's result unparsed (the loose
 * base result schema keeps every field). A JSON-RPC error rejects as a RelayedError with the
 * upstream's own code, message and data.
 */
export async function forwardRequest(
  client: Client,
  method: string,
  params: Record<string, unknown> | undefined,
  options: ForwardOptions = {},
): Promise<Record<string, unknown>> {
  try {
    return await client.request({ method, ...(params === undefined ? {} : { params }) } as never, ResultSchema, {
      signal: options.signal,
      onprogress: options.onprogress,
      timeout: options.timeoutMs ?? defaultUpstreamTimeoutMs,
      resetTimeoutOnProgress: true,
    });
  } catch (error) {
    throw relayedError(error);
  }
}

/** The four lists, by list method, with the field each result keeps its items in. */
export const upstreamLists = {
  tool: { method: 'tools/list', field: 'tools' },
  prompt: { method: 'prompts/list', field: 'prompts' },
  resource: { method: 'resources/list', field: 'resources' },
  resourceTemplate: { method: 'resources/templates/list', field: 'resourceTemplates' },
} as const;

/** More pages than this is a broken upstream (a cursor loop), not a list. */
const maxPages = 1_000;

/**
 * Every page of one upstream list. A cursor seen before ends the walk with an error instead of
 * looping; so does a page without the list's field.
 */
export async function fetchWholeList(client: Client, method: string, field: string, options: ForwardOptions = {}): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = await forwardRequest(client, method, cursor === undefined ? undefined : { cursor }, options);
    const pageItems = result[field];
    if (!Array.isArray(pageItems)) throw new Error(`upstream ${method} answered without a "${field}" list`);
    for (const item of pageItems) if (item !== null && typeof item === 'object' && !Array.isArray(item)) items.push(item as Record<string, unknown>);
    const next = result['nextCursor'];
    if (typeof next !== 'string' || next === '') return items;
    if (seenCursors.has(next)) throw new Error(`upstream ${method} returned the cursor ${JSON.stringify(next)} twice`);
    seenCursors.add(next);
    cursor = next;
  }
  throw new Error(`upstream ${method} has more than ${maxPages} pages`);
}

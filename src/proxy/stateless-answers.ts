// How the proxy answers a 2026-07-28 stateless request, whatever carries it (an HTTP POST,
// stateless-requests.ts, or a line on stdio, stdio-era-serving.ts): the result as a 2026-07-28
// server shapes it, the error a failure becomes, and the policy's view of the request's envelope.
import { readEnvelope } from '../adapter/envelope.js';
import type { RequestContextInput } from '../core/context.js';
import { RelayedError } from '../wire/relayed-error.js';

type Params = Record<string, unknown> | undefined;

/** A JSON-RPC error object, as it goes in an answer. */
export interface StatelessError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The result as the downstream client gets it. */
export function shapeStatelessResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  // The gate answers lists itself, filtered for this caller: a 2026-07-28 result says it is complete and how it may be
  // cached (forwarded results already do). Never by a shared cache, and not kept: the policy may change it any time.
  let answer = 'resultType' in result ? result : { ...result, resultType: 'complete', ttlMs: 0, cacheScope: 'private' };
  // A read the upstream marks `public` was let through for this caller's context: a shared cache must not hand it to another.
  if (method === 'resources/read' && answer['cacheScope'] === 'public') answer = { ...answer, cacheScope: 'private' };
  return answer;
}

/**
 * The HTTP status `@modelcontextprotocol/server` 2.4 answers these JSON-RPC errors with (its
 * LADDER_ERROR_HTTP_STATUS: the errors it raises before a handler runs, such as a method it does
 * not serve); any other error is in-band, on 200. The upstream's own status is not seen through
 * the Client (nor over stdio), so a relayed error is given the one the upstream gave it.
 */
export const ladderStatus: Readonly<Record<number, number>> = { [-32700]: 400, [-32600]: 400, [-32601]: 404, [-32022]: 400, [-32021]: 400, [-32020]: 400 };

/** The error a failed request is answered with: the upstream's own, relayed; anything else is reported and answered as the upstream being down. */
export function statelessErrorOf(error: unknown, onError: (error: unknown) => void): StatelessError {
  if (error instanceof RelayedError)
    return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
  onError(error);
  return { code: -32603, message: 'The upstream server is not available' };
}

/** The request's `_meta.progressToken`, when it asked for progress. */
export function progressTokenOf(params: Params): string | number | undefined {
  const token = (params?.['_meta'] as { progressToken?: unknown } | undefined)?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The `notifications/progress` message the client gets for its own token. */
export function progressNotification(progress: { progress: number; total?: number; message?: string }, progressToken: string | number) {
  return { jsonrpc: '2.0' as const, method: 'notifications/progress', params: { ...progress, progressToken } };
}

/** Where the request came in, as far as the carrier knows it (stdio has no headers, endpoint or token). */
export interface StatelessCarrier {
  readonly headers: NonNullable<RequestContextInput['request']>['headers'];
  readonly endpoint: string;
  /** The protocol version the carrier claims (the HTTP header), used when the envelope names none. */
  readonly protocolVersion?: string | undefined;
  readonly auth?: RequestContextInput['auth'];
}

/** The request as a policy reads it: the client from this request's own envelope, the rest from its carrier. */
export function statelessContextInput(method: string, params: Params, carrier: StatelessCarrier): RequestContextInput {
  const envelope = readEnvelope(params?.['_meta']);
  return {
    request: { method, headers: carrier.headers, endpoint: carrier.endpoint, protocolVersion: envelope?.protocolVersion ?? carrier.protocolVersion },
    client: { name: envelope?.clientName, version: envelope?.clientVersion, capabilities: envelope?.capabilities },
    ...(carrier.auth === undefined ? {} : { auth: carrier.auth }),
  };
}

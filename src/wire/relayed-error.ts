import { PolicyError } from '../core/errors.js';

/**
 * A JSON-RPC error as the upstream sent it, thrown into the downstream SDK so that the client
 * gets the same code, message and data. The SDK's Protocol turns a thrown error into
 * `{ code, message, data }` from these three fields.
 */
export class RelayedError extends PolicyError {
  override name = 'RelayedError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The error the upstream sent. The v1 SDK's client rejects with an McpError whose message is
 * the upstream's prefixed with `MCP error CODE: `; the prefix is taken off again, so relaying
 * never adds one. Anything that is not a JSON-RPC error (a transport failure) passes through.
 */
export function relayedError(error: unknown): unknown {
  if (error instanceof RelayedError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'number' || !Number.isSafeInteger(code)) return error;
  const prefix = `MCP error ${code}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return new RelayedError(code, message, (error as { data?: unknown }).data);
}

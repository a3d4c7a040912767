import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey } from '../adapter/envelope.js';
import type { Caller, Transmission } from './callers.js';

/** The protocol revision whose requests carry their client's capabilities in `_meta`. */
export const modernProtocolVersion = '2026-07-28';

const nameParameter: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** The `_meta` envelope every 2026-07-28 request of this caller carries: who it is and what it can do. */
export function modernEnvelope(caller: Caller): Record<string, unknown> {
  return {
    [protocolVersionMetaKey]: modernProtocolVersion,
    [clientInfoMetaKey]: { name: caller.client.name, version: caller.client.version },
    [clientCapabilitiesMetaKey]: structuredClone(caller.client.capabilities),
  };
}

/**
 * What reaches a v2 gate besides the envelope: over HTTP the caller's headers plus the standard
 * ones (SEP-2243 `Mcp-Method`/`Mcp-Name`, which a policy may read too); over stdio nothing.
 */
export function modernTransmission(caller: Caller, method: string, params: Readonly<Record<string, unknown>> = {}): Transmission {
  if (caller.endpoint === '') return { headers: {}, protocolVersion: modernProtocolVersion };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(caller.headers)) headers[name.toLowerCase()] = value;
  Object.assign(headers, {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': modernProtocolVersion,
    'mcp-method': method,
  });
  const named = nameParameter[method] === undefined ? undefined : params[nameParameter[method]];
  if (typeof named === 'string') headers['mcp-name'] = headerValue(named);
  return { headers, protocolVersion: modernProtocolVersion };
}

const plainHeaderValue = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * A name as an HTTP header value: printable ASCII as is, anything else (non-ASCII, surrounding
 * spaces, a value that looks like the sentinel) as SEP-2243's `=?base64?…?=` of its UTF-8 bytes.
 */
function headerValue(value: string): string {
  if (plainHeaderValue.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  return `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(value)))}?=`;
}

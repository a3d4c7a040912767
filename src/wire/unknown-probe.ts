import { RelayedError } from './relayed-error.js';

// A hidden primitive is answered as the upstream answers a name nobody registered: the request
// goes upstream with the name (or URI) swapped for a probe nobody can have, and the probe is
// swapped back for the requested name in whatever comes back. Asking per request, rather than
// replaying one cached answer, keeps a hidden name exactly as slow as an unknown one (both take
// one upstream round trip) and exact when the upstream's answer depends on the arguments.

/** A probe token per connection: random, so no upstream can have registered it. */
export function createProbeToken(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A tool or prompt name no upstream has. */
export function probeName(token: string): string {
  return `mcp-gate-probe-${token}`;
}

/** The host of every probe URI (`.invalid` is reserved: no real resource has it). */
const probeHost = 'mcp-gate-probe.invalid';

/**
 * A URI no upstream has, in the requested URI's scheme where there is one (servers often answer
 * per scheme: a file server refuses other schemes outright). Lower case and without anything a
 * URL parser rewrites, so it reads back unchanged from an upstream that normalizes URIs.
 */
export function probeUri(token: string, requested: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(requested)?.[1]?.toLowerCase();
  return `${scheme ?? 'mcp-gate-probe'}://${probeHost}/${token}`;
}

/** Whether `uri` is one of probeUri's: what the gate sent in place of a hidden URI. */
export function isProbeUri(uri: string): boolean {
  try {
    return new URL(uri).hostname === probeHost;
  } catch {
    return false;
  }
}

/** Every string inside a JSON value with `from` replaced by `to`; values without it are returned as they are. */
export function renameDeep(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.includes(from) ? value.split(from).join(to) : value;
  if (Array.isArray(value)) {
    const renamed = value.map((item) => renameDeep(item, from, to));
    return renamed.some((item, index) => item !== value[index]) ? renamed : value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const renamed = renameDeep(item, from, to);
      if (renamed !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = renamed;
    }
    return copy ?? value;
  }
  return value;
}

/** Runs `ask` (the probe request) and renames `from` to `to` in its result or its relayed error. */
export async function answerAs(ask: () => Promise<unknown>, from: string, to: string): Promise<unknown> {
  try {
    return renameDeep(await ask(), from, to);
  } catch (error) {
    if (!(error instanceof RelayedError)) throw error;
    throw new RelayedError(error.code, error.message.split(from).join(to), renameDeep(error.data, from, to));
  }
}

import type { RequestContextInput } from '../core/context.js';

/*
 * The parts of a request's context that every binding reads the same way. The verified token is
 * token-auth.ts; the rest of the translation (headers, sessions, the envelope) is each binding's.
 */

/** The low-level Server's record of its session's `initialize` (the same in SDK 1.32 and 2.4). */
export interface InitializedSession {
  getClientVersion(): { readonly name: string; readonly version: string } | undefined;
  getClientCapabilities(): unknown;
}

/**
 * The client as a 2025-era session's `initialize` declared it: name, version and capabilities,
 * kept by the server instance for the whole session (none before `initialize`, and none for a
 * stateless HTTP request, whose capabilities `onMissingCapabilities` decides about).
 */
export function sessionClientOf(session: InitializedSession): NonNullable<RequestContextInput['client']> {
  const clientVersion = session.getClientVersion();
  return { name: clientVersion?.name, version: clientVersion?.version, capabilities: session.getClientCapabilities() as Record<string, unknown> | undefined };
}

/**
 * The path of a `Request#url`. That is a URL the WHATWG parser already serialized, where the path
 * starts at the first `/` after `//` (userinfo has `/` percent-encoded, hosts have none) and runs
 * to `?` or `#`: sliced out instead of parsed again (a second parse was a third of the time it
 * took to build a request's context). Anything else is parsed.
 */
export function pathnameOf(url: string): string {
  const authority = url.indexOf('://');
  const start = authority < 0 ? -1 : url.indexOf('/', authority + 3);
  if (start < 0) return parsedPathnameOf(url);
  let end = url.length;
  for (let index = start; index < url.length; index++) {
    const char = url.charCodeAt(index);
    if (char === 0x3f || char === 0x23) {
      end = index;
      break;
    }
  }
  return url.slice(start, end);
}

function parsedPathnameOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

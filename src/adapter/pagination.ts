import { PolicyError, PolicyOptionError } from '../core/errors.js';

/** A cursor was not issued by this gate, or was issued under another policy revision or context. */
export class InvalidCursorError extends PolicyError {
  override name = 'InvalidCursorError';
  constructor() {
    super('Invalid cursor');
  }
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string | undefined;
}

export interface Paginator {
  /**
   * Returns the page a cursor points at. `binding` names what the list was computed under (kind,
   * policy revision, context key); a cursor only opens the list it was issued for.
   */
  page<T>(items: readonly T[], cursor: string | undefined, binding: string): Page<T>;
}

/**
 * Without a page size the gate behaves like the SDK: one page, cursor ignored. With one, cursors
 * are opaque and keyed with a per-gate random secret, so a forged or stale cursor is rejected
 * instead of silently paging through a different list. The tag is not a cryptographic MAC; it need
 * not be, because a cursor only ever selects among items the caller may already see.
 */
export function createPaginator(pageSize: number | undefined, secret: string = randomSecret()): Paginator {
  if (pageSize !== undefined && (!Number.isSafeInteger(pageSize) || pageSize < 1)) {
    throw new PolicyOptionError(`mcp-gate: option "pageSize" must be a positive integer, got ${String(pageSize)}`);
  }
  return {
    page(items, cursor, binding) {
      if (pageSize === undefined) return { items };
      const offset = cursor === undefined ? 0 : decodeCursor(cursor, binding, secret);
      if (offset > items.length) throw new InvalidCursorError();
      const end = offset + pageSize;
      const pageItems = offset === 0 && end >= items.length ? items : items.slice(offset, end);
      return end < items.length ? { items: pageItems, nextCursor: encodeCursor(end, binding, secret) } : { items: pageItems };
    },
  };
}

function encodeCursor(offset: number, binding: string, secret: string): string {
  return toBase64Url(`${offset}.${tag(`${secret}\u0000${binding}\u0000${offset}`)}`);
}

function decodeCursor(cursor: string, binding: string, secret: string): number {
  const decoded = fromBase64Url(cursor);
  const match = decoded === undefined ? null : /^(\d{1,9})\.([0-9a-f]{16})$/.exec(decoded);
  if (!match) throw new InvalidCursorError();
  const offset = Number(match[1]);
  if (match[2] !== tag(`${secret}\u0000${binding}\u0000${offset}`)) throw new InvalidCursorError();
  return offset;
}

function toBase64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return undefined;
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
}

/** Two independent 32-bit multiplicative hashes (cyrb53's mixing), as 16 hex digits. */
function tag(text: string): string {
  let first = 0xdeadbeef;
  let second = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 2654435761);
    second = Math.imul(second ^ code, 1597334677);
  }
  first = Math.imul(first ^ (first >>> 16), 2246822507) ^ Math.imul(second ^ (second >>> 13), 3266489909);
  second = Math.imul(second ^ (second >>> 16), 2246822507) ^ Math.imul(first ^ (first >>> 13), 3266489909);
  return (first >>> 0).toString(16).padStart(8, '0') + (second >>> 0).toString(16).padStart(8, '0');
}

function randomSecret(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

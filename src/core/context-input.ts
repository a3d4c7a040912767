// Copies what a request hands the gate (headers, scopes, capabilities, claims) into frozen plain
// data that policies can read safely, whatever the input: the hostile-input half of context.ts.

const maxCopiedDepth = 32;
/** Values one capabilities or claims object may hold; JSON from a client is far smaller, and this bounds a proxy that lies about its size. */
export const maxCopiedValues = 100_000;

export class CopyBudget {
  remaining = maxCopiedValues;
}

const unreadable = 'could not be read';

/** Reading a value threw: the keys from the copied object down to it, and what was thrown. */
export class UnreadableValue {
  constructor(
    readonly keys: (string | number)[],
    readonly cause: unknown,
    readonly problem = unreadable,
  ) {}
}

/**
 * Copies JSON-like data so the frozen context never shares (or freezes) an object the SDK owns.
 * Anything that is not plain data (functions, class instances, cycles, nesting past 32 levels)
 * is dropped, so a hostile capability object cannot make evaluation misbehave. Each property is
 * read once, so a getter that answers differently on every read still yields one consistent
 * copy. A read that throws, or more than maxCopiedValues values, throws an UnreadableValue
 * (dropping what cannot be read could drop what a deny rule tests).
 */
export function copyPlainData(value: unknown, budget: CopyBudget, ancestors: unknown[] = []): unknown {
  if (--budget.remaining < 0) throw new UnreadableValue([], undefined, `holds more than ${maxCopiedValues} values`);
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (ancestors.length >= maxCopiedDepth || ancestors.includes(value)) return undefined;
  const isArray = Array.isArray(value);
  const prototype = Object.getPrototypeOf(value);
  if (!isArray && prototype !== Object.prototype && prototype !== null) return undefined;
  ancestors.push(value);
  let copy: unknown;
  if (isArray) {
    const length = (value as unknown[]).length;
    if (length > budget.remaining) throw new UnreadableValue([], undefined, `holds more than ${maxCopiedValues} values`);
    const items: unknown[] = [];
    for (let index = 0; index < length; index++) items.push(copyItem(value as Record<number, unknown>, index, budget, ancestors) ?? null);
    copy = Object.freeze(items);
  } else {
    const record: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      if (key === '__proto__') continue;
      const item = copyItem(value as Record<string, unknown>, key, budget, ancestors);
      if (item !== undefined) record[key] = item;
    }
    copy = Object.freeze(record);
  }
  ancestors.pop();
  return copy;
}

/** One property's copy; a throw below it gets its key, so the error names the whole path. */
function copyItem(container: Record<string | number, unknown>, key: string | number, budget: CopyBudget, ancestors: unknown[]): unknown {
  try {
    return copyPlainData(container[key], budget, ancestors);
  } catch (error) {
    const inner = error instanceof UnreadableValue ? error : new UnreadableValue([], error);
    // A size error names the object copied, not the value where the count ran out.
    if (inner.cause !== undefined || inner.problem === unreadable) inner.keys.unshift(key);
    throw inner;
  }
}

export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || seen.has(value)) return value;
  seen.add(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key], seen);
  return Object.freeze(value);
}

/** Headers as an adapter hands them over: Node's shape, repeated ones as arrays. */
export type HeaderSource = Readonly<Record<string, string | readonly string[] | undefined>> | undefined;

function headerValue(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (!Array.isArray(raw)) return undefined;
  return stringsOf(raw).join(', ');
}

/** The strings of an array, read once each; bounded, so a proxy claiming 2^32 items is refused, not iterated. */
export function stringsOf(source: readonly unknown[]): string[] {
  const length = source.length;
  if (length > maxCopiedValues) throw new UnreadableValue([], undefined, `holds more than ${maxCopiedValues} values`);
  const strings: string[] = [];
  for (let index = 0; index < length; index++) {
    const item = source[index];
    if (typeof item === 'string') strings.push(item);
  }
  return strings;
}

export function copyHeaders(source: HeaderSource): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (source === null || typeof source !== 'object') return Object.freeze(headers);
  for (const name of Object.keys(source)) {
    const value = headerValue(source[name]);
    if (value === undefined) continue;
    const key = name.toLowerCase();
    if (key === '__proto__') continue;
    headers[key] = Object.hasOwn(headers, key) ? `${headers[key]}, ${value}` : value;
  }
  return Object.freeze(headers);
}

export function pickHeaders(source: HeaderSource, names: readonly string[]): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  if (source === null || typeof source !== 'object') return Object.freeze(headers);
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const value = Object.hasOwn(source, name) ? headerValue(source[name]) : undefined;
    if (value !== undefined) headers[name] = value;
  }
  return Object.freeze(headers);
}

/**
 * The text of one value read from a context, for a cache key: two values get the same text only
 * when no rule could tell them apart. Canonical JSON is not enough: it prints -0 as 0, NaN and
 * ±Infinity as null and drops undefined, and a rule can tell each of those apart (`1 / x`, `var`
 * with a default). Anything that is not plain data (a function, a class instance, a sparse or
 * decorated array, an accessor, a cycle, nesting past 64 levels) gets `uncacheable`: its
 * behaviour is not in its text, so the context is decided afresh, never shared.
 */
export const uncacheable: unique symbol = Symbol('uncacheable');

// Capabilities and claims are one frozen copy per session (createRequestContext copies each
// once), so their text is computed once per object, not once per request.
const serializedObjects = new WeakMap<object, string>();

const maxDepth = 64;

class NotData extends Error {}

export function serializeKeyValue(value: unknown): string | typeof uncacheable {
  try {
    return serialize(value, 0).text;
  } catch {
    // NotData, or a getter or proxy that threw while being read: not a key.
    return uncacheable;
  }
}

interface Serialized {
  readonly text: string;
  /** Frozen all the way down, so the text cannot go stale. */
  readonly frozen: boolean;
}

function serialize(value: unknown, depth: number): Serialized {
  switch (typeof value) {
    case 'string':
      return { text: JSON.stringify(value), frozen: true };
    case 'number':
      return { text: Object.is(value, -0) ? '-0' : String(value), frozen: true };
    case 'boolean':
      return { text: value ? 'true' : 'false', frozen: true };
    case 'undefined':
      return { text: 'u', frozen: true };
    case 'object':
      if (value === null) return { text: 'null', frozen: true };
      return serializeObject(value, depth);
    default:
      // bigint, symbol, function
      throw new NotData();
  }
}

function serializeObject(value: object, depth: number): Serialized {
  const known = serializedObjects.get(value);
  if (known !== undefined) return { text: known, frozen: true };
  if (depth >= maxDepth) throw new NotData();
  let frozen = Object.isFrozen(value);
  let text: string;
  if (Array.isArray(value)) {
    // Own names are the indexes and `length`: anything else (holes, extra keys) is not plain data.
    if (Object.getOwnPropertyNames(value).length !== value.length + 1) throw new NotData();
    const items: string[] = [];
    for (let index = 0; index < value.length; index++) {
      const item = serializeOwn(value, String(index), depth);
      frozen &&= item.frozen;
      items.push(item.text);
    }
    text = `[${items.join(',')}]`;
  } else {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw new NotData();
    // Non-enumerable names too: a path reader reads them.
    const names = Object.getOwnPropertyNames(value).sort();
    const entries: string[] = [];
    for (const name of names) {
      const item = serializeOwn(value, name, depth);
      frozen &&= item.frozen;
      entries.push(`${JSON.stringify(name)}:${item.text}`);
    }
    text = `{${entries.join(',')}}`;
  }
  if (frozen) serializedObjects.set(value, text);
  return { text, frozen };
}

function serializeOwn(owner: object, name: string, depth: number): Serialized {
  const descriptor = Object.getOwnPropertyDescriptor(owner, name);
  // An accessor may answer differently each time it is read.
  if (descriptor === undefined || !('value' in descriptor)) throw new NotData();
  return serialize(descriptor.value, depth + 1);
}

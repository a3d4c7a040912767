/**
 * Wraps plain data in proxies that count every read the code under test makes (property reads,
 * key listings, descriptor and prototype lookups). Work is then bounded by counting operations,
 * not by timing, so the assertions hold on any machine.
 */
export function countReads<T>(value: T): { value: T; reads: () => number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (target: unknown): unknown => {
    if (target === null || typeof target !== 'object') return target;
    const known = proxies.get(target);
    if (known) return known;
    const proxy = new Proxy(target, {
      get(object, key, receiver) {
        reads++;
        return wrap(Reflect.get(object, key, receiver));
      },
      ownKeys(object) {
        reads++;
        return Reflect.ownKeys(object);
      },
      getOwnPropertyDescriptor(object, key) {
        reads++;
        return Reflect.getOwnPropertyDescriptor(object, key);
      },
      has(object, key) {
        reads++;
        return Reflect.has(object, key);
      },
      getPrototypeOf(object) {
        reads++;
        return Reflect.getPrototypeOf(object);
      },
    });
    proxies.set(target, proxy);
    return proxy;
  };
  return { value: wrap(value) as T, reads: () => reads };
}

/** `depth` levels of `wrap` around `leaf`, built iteratively (no recursion in the test either). */
export function nest(depth: number, wrap: (inner: unknown) => unknown, leaf: unknown = true): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = wrap(value);
  return value;
}

/** The same document with `rules[0].when` set to `when`. */
export function withWhen(when: unknown): Record<string, unknown> {
  return { version: 1, default: 'deny', rules: [{ id: 'hostile', effect: 'allow', when }] };
}

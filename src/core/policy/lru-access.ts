import type { LRUCache } from 'lru-cache';

// lru-cache writes `status` into the options object of every `get` and `set`, a fresh `{}` when
// none is given. Adding a property to a fresh `{}` takes V8's slow path once the process has
// made objects with about 2,000 distinct first keys (V8 stops recording map transitions; callers'
// header and extension names get there): 22 ns became 300-400 ns, and a `get` 40 ns became
// 950 ns. Options objects that already have `status` keep it a plain store. Nothing here runs
// user code, so one pair serves every cache.

// Typed loosely: `status` is the only field ever set, and it is reset before each call.
const getOptions: { status: undefined } = { status: undefined };
const setOptions: { status: undefined } = { status: undefined };

export function cacheGet<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(cache: LRUCache<K, V>, key: K): V | undefined {
  getOptions.status = undefined;
  return cache.get(key, getOptions as LRUCache.GetOptions<K, V, unknown>);
}

export function cacheSet<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(cache: LRUCache<K, V>, key: K, value: V): void {
  setOptions.status = undefined;
  cache.set(key, value, setOptions as LRUCache.SetOptions<K, V, unknown>);
}

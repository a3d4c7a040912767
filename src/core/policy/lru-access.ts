import type { LRUCache } from 'lru-cache';

// lru-cache writes `status` into the options object of every `get` and `set`, a fresh `{}` when
// none is given. Adding a property to a fresh object takes V8's slow path once the process has
// seen a few thousand distinct first keys on object literals (callers' header and extension
// names do that): a `get` went from 40 ns to 950 ns. Options objects that already have `status`
// keep it a plain store. Nothing here runs user code, so one pair serves every cache.

// Typed loosely: `status` is the only field ever set, and it is reset before each call.
const getOptions: { status: undefined } = { status: undefined };
const setOptions: { status: undefined } = { status: undefined };

export function cacheGet<K extends {}, V extends {}>(cache: LRUCache<K, V>, key: K): V | undefined {
  getOptions.status = undefined;
  return cache.get(key, getOptions as LRUCache.GetOptions<K, V, unknown>);
}

export function cacheSet<K extends {}, V extends {}>(cache: LRUCache<K, V>, key: K, value: V): void {
  setOptions.status = undefined;
  cache.set(key, value, setOptions as LRUCache.SetOptions<K, V, unknown>);
}

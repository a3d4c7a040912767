import { LRUCache } from 'lru-cache';
import { cacheGet, cacheSet } from './lru-access.js';

/**
 * Visible lists by context key, for one registry version: the one list cache behind
 * createVisibilityFilter and the gates' policy views (src/adapter/policy-view.ts). Keys come
 * from `Policy.contextKeyFor`, so equal keys mean equal decisions; a context that cannot be keyed
 * as data gets a key of its own (context-key.ts), which is never seen twice and so never stored.
 */
export interface ListCache<T> {
  /** The stored list for this key, or undefined. */
  get(key: string): readonly T[] | undefined;
  /**
   * Offers the list just computed for `key` and returns the list to answer with. It is stored
   * (frozen: from then on every caller with this key shares it) on the key's second sighting.
   */
  admit(key: string, list: T[]): readonly T[];
}

/**
 * Admission on the second sighting: a key seen once is only remembered, as a string in a set,
 * and its list is stored the second time it is computed. A caller that never comes back (a
 * unique header value, a one-off session, a context that is not data) then never evicts the list
 * of one that recurs, and holds no list in memory; a recurring caller pays one extra miss. Keys
 * seen once are kept in two generations of `maxLists` each (the older one dropped when the newer
 * fills), so a caller that recurs within `maxLists` other first sightings is always admitted —
 * as an LRU of `maxLists` lists would have kept it — while memory stays `maxLists` lists and at
 * most twice as many keys. (One set cleared when full forgot such a caller about half the time:
 * 8 callers each back after ~500 one-offs recomputed 275 of 312 lists instead of 8.)
 */
export function createListCache<T>(maxLists: number): ListCache<T> {
  const lists = new LRUCache<string, readonly T[]>({ max: maxLists });
  let seenOnce = new Set<string>();
  let seenOnceBefore = new Set<string>();
  return {
    get(key) {
      return cacheGet(lists, key);
    },
    admit(key, list) {
      if (seenOnce.delete(key) || seenOnceBefore.delete(key)) {
        // Frozen only once shared: a list handed to one caller alone need not pay for it.
        const shared: readonly T[] = Object.freeze(list);
        cacheSet(lists, key, shared);
        return shared;
      }
      if (seenOnce.size >= maxLists) {
        seenOnceBefore = seenOnce;
        seenOnce = new Set();
      }
      seenOnce.add(key);
      return list;
    },
  };
}

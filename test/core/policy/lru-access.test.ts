import { channel } from 'node:diagnostics_channel';
import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { cacheGet, cacheSet } from '../../../src/core/policy/lru-access.js';

describe('cacheGet / cacheSet (lru-cache with reused options objects)', () => {
  it('reads and writes like get and set, evicting the least recently used', () => {
    const cache = new LRUCache<string, number[]>({ max: 2 });
    cacheSet(cache, 'a', [1]);
    cacheSet(cache, 'b', [2]);
    expect(cacheGet(cache, 'a')).toEqual([1]);
    cacheSet(cache, 'c', [3]);
    expect([cacheGet(cache, 'a'), cacheGet(cache, 'b'), cacheGet(cache, 'c')]).toEqual([[1], undefined, [3]]);
  });

  it('gives a diagnostics subscriber a fresh status for every call, never the last call’s', async () => {
    // lru-cache looks its channel up asynchronously when it loads.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const seen: Array<{ op?: string; key?: string; get?: string; value?: unknown }> = [];
    const metrics = channel('lru-cache:metrics');
    const record = (message: unknown) => void seen.push({ ...(message as object) });
    metrics.subscribe(record);
    try {
      const cache = new LRUCache<string, number[]>({ max: 4 });
      cacheSet(cache, 'a', [1]);
      cacheGet(cache, 'a');
      cacheGet(cache, 'missing');
    } finally {
      metrics.unsubscribe(record);
    }
    expect(seen.map(({ op, key, get, value }) => ({ op, key, get, value }))).toEqual([
      { op: 'set', key: 'a', get: undefined, value: [1] },
      { op: 'get', key: 'a', get: 'hit', value: [1] },
      { op: 'get', key: 'missing', get: 'miss', value: undefined },
    ]);
  });
});

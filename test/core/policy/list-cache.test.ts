import { describe, expect, it } from 'vitest';
import { createListCache } from '../../../src/core/policy/list-cache.js';

describe('createListCache', () => {
  it('stores a list on its key’s second sighting, frozen, and serves that list from then on', () => {
    const cache = createListCache<string>(4);
    const first = ['a'];
    expect(cache.admit('k', first)).toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
    expect(cache.get('k')).toBeUndefined();
    const second = ['a'];
    const stored = cache.admit('k', second);
    expect(Object.isFrozen(stored)).toBe(true);
    expect(cache.get('k')).toBe(stored);
  });

  it('keeps a recurring key’s list however many keys are seen only once', () => {
    const cache = createListCache<string>(4);
    cache.admit('recurring', ['r']);
    const stored = cache.admit('recurring', ['r']);
    for (let index = 0; index < 1000; index++) cache.admit(`one-off-${index}`, ['o']);
    expect(cache.get('recurring')).toBe(stored);
  });

  it('admits a key seen again after maxLists other keys were each seen once', () => {
    const cache = createListCache<string>(4);
    cache.admit('recurring', ['r']);
    for (let index = 0; index < 4; index++) cache.admit(`one-off-${index}`, ['o']);
    const stored = cache.admit('recurring', ['r']);
    expect(cache.get('recurring')).toBe(stored);
  });

  it('holds at most maxLists lists, dropping the least recently used', () => {
    const cache = createListCache<string>(2);
    for (const key of ['a', 'b', 'a', 'b', 'c', 'c']) cache.admit(key, [key]);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, ['b'], ['c']]);
  });
});

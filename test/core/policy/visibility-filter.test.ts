import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/core/context.js';
import type { PrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import type { Policy } from '../../../src/core/policy/types.js';
import { createVisibilityFilter } from '../../../src/core/policy/visibility-filter.js';
import { context, tool } from './fixtures.js';

// Answers of the cached filter against plain evaluation are property-tested in
// test/properties/decision-cache.test.ts; these tests pin when it builds keys and stores lists.

const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'beta', effect: 'deny', appliesTo: { tags: ['beta'] }, when: { '!==': [{ var: 'request.headers.x-beta' }, 'on'] } }],
});
const tools = Array.from({ length: 20 }, (_, index) => tool(`t${index}`, { tags: index % 4 === 0 ? ['beta'] : [] }));
const identity = (primitive: PrimitiveMetadata) => primitive;

/** The policy, counting the context keys the filter builds. */
function countingKeys(inner: Policy): { policy: Policy; keys: () => number } {
  let keys = 0;
  const contextKeyFor = (primitives: readonly PrimitiveMetadata[]) => {
    const key = inner.contextKeyFor(primitives);
    return (request: RequestContext) => {
      keys++;
      return key(request);
    };
  };
  return { policy: { ...inner, contextKeyFor }, keys: () => keys };
}

function caller(index: number): RequestContext {
  return context({ request: { headers: { 'x-beta': `build-${index}` } } });
}

describe('createVisibilityFilter', () => {
  it('stores a list on its second sighting and serves it from then on', () => {
    const filter = createVisibilityFilter(policy, tools, identity);
    const request = context({ request: { headers: { 'x-beta': 'on' } } });
    const first = filter.visible(request);
    const second = filter.visible(request);
    expect(second).not.toBe(first);
    expect(filter.visible(request)).toBe(second);
    expect(Object.isFrozen(second)).toBe(true);
    expect(second).toEqual(tools);
  });

  it('stops building keys for about 63 of 64 requests when callers never recur', () => {
    const { policy: counted, keys } = countingKeys(policy);
    const filter = createVisibilityFilter(counted, tools, identity, { cacheSize: 64 });
    for (let index = 0; index < 8192; index++) filter.visible(caller(index));
    // One window of 256 keyed requests, then one request in 32 to 95.
    expect(keys()).toBeGreaterThan(256);
    expect(keys()).toBeLessThan(256 + 8192 / 32);
  });

  it('goes back to keying every request within a few thousand requests once callers recur', () => {
    const { policy: counted, keys } = countingKeys(policy);
    const filter = createVisibilityFilter(counted, tools, identity, { cacheSize: 64 });
    for (let index = 0; index < 8192; index++) filter.visible(caller(index));
    const callers = Array.from({ length: 8 }, (_, index) => caller(index));
    for (let index = 0; index < 8192; index++) filter.visible(callers[index % callers.length]!);
    // The last 1,000 requests are all keyed (and served from the cache).
    const before = keys();
    for (let index = 0; index < 1000; index++) filter.visible(callers[index % callers.length]!);
    expect(keys() - before).toBe(1000);
  });

  it('is not fooled by periodic traffic into keying every request (callers cycling with a period of 512)', () => {
    // A fixed stride of 16 would sample the same 32 callers every cycle: they fit the cache,
    // hit every time, and switch keys back on for every request.
    const { policy: counted, keys } = countingKeys(policy);
    const filter = createVisibilityFilter(counted, tools, identity, { cacheSize: 64 });
    const callers = Array.from({ length: 512 }, (_, index) => caller(index));
    for (let index = 0; index < 8192; index++) filter.visible(callers[index % callers.length]!);
    expect(keys()).toBeLessThan(256 + 8192 / 32);
  });

  it('keeps keying while callers recur', () => {
    const { policy: counted, keys } = countingKeys(policy);
    const filter = createVisibilityFilter(counted, tools, identity, { cacheSize: 64 });
    const callers = Array.from({ length: 8 }, (_, index) => caller(index));
    for (let index = 0; index < 4096; index++) filter.visible(callers[index % callers.length]!);
    expect(keys()).toBe(4096);
  });
});

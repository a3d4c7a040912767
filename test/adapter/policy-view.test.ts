import { describe, expect, it } from 'vitest';
import { buildCatalog, type PrimitiveSource } from '../../src/adapter/catalog.js';
import { createPolicyView } from '../../src/adapter/policy-view.js';
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { Policy } from '../../src/core/policy/types.js';

const sources: PrimitiveSource[] = Array.from({ length: 20 }, (_, index) => ({
  kind: 'tool',
  key: `t${index}`,
  name: `t${index}`,
  meta: { 'mcp-gate': { tags: index % 4 === 0 ? ['beta'] : [] } },
}));
const catalog = buildCatalog(sources, { version: 1, annotations: new Map(), versionSeparator: '@' });
const compiled = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'beta', effect: 'deny', appliesTo: { tags: ['beta'] }, when: { '!==': [{ var: 'request.headers.x-beta' }, 'on'] } }],
});

/** The compiled policy, counting the lists it decides (one forContext per list computed). */
function countingLists(): { policy: Policy; lists: () => number } {
  let lists = 0;
  const forContext: Policy['forContext'] = (context) => {
    lists++;
    return compiled.forContext(context);
  };
  return { policy: { ...compiled, forContext }, lists: () => lists };
}

const caller = (beta: string): RequestContext => createRequestContext({ request: { headers: { 'x-beta': beta } } });

describe('createPolicyView', () => {
  it('stores a list on the second sighting of a context key, then serves it without deciding', () => {
    const { policy, lists } = countingLists();
    const view = createPolicyView(policy, 'deny');
    const list = (context: RequestContext) => view.visibleEntries(catalog, 'tool', context, view.cacheKey(catalog, context));
    const first = list(caller('on'));
    const second = list(caller('on'));
    expect(lists()).toBe(2);
    expect(second).toEqual(first);
    expect(list(caller('on'))).toBe(second);
    expect(lists()).toBe(2);
  });

  it('keeps a recurring caller’s list while a thousand callers list once each', () => {
    const { policy, lists } = countingLists();
    const view = createPolicyView(policy, 'deny');
    const list = (context: RequestContext) => view.visibleEntries(catalog, 'tool', context, view.cacheKey(catalog, context));
    list(caller('on'));
    const stored = list(caller('on'));
    for (let index = 0; index < 1000; index++) list(caller(`build-${index}`));
    const before = lists();
    expect(list(caller('on'))).toBe(stored);
    expect(lists()).toBe(before);
  });
});

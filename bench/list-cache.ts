// The gates' list cache (src/core/policy/list-cache.ts, admission on second sighting) against the
// plain 512-list LRU the gates used before, on one policy view of 1,000 tools: 8 recurring callers
// among one-off callers, each recurring caller back after a gap of 8 to 1,000 other requests.
// Counts are exact (lists computed, the policy's forContext calls); heap is what the cache holds
// after a full GC. Run: npx tsx bench/list-cache.ts
import { writeFileSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { buildCatalog, type Catalog, type CatalogEntry, type PrimitiveSource } from '../src/adapter/catalog.js';
import { createRequestContext, type RequestContext } from '../src/core/context.js';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { createListCache } from '../src/core/policy/list-cache.js';
import { collectGarbage } from './process-env.js';

const toolCount = 1000;
const sources: PrimitiveSource[] = Array.from({ length: toolCount }, (_, index) => ({
  kind: 'tool',
  key: `t${index}`,
  name: `t${index}`,
  meta: { 'mcp-gate': { tags: index % 4 === 0 ? ['beta'] : [] } },
}));
const catalog: Catalog = buildCatalog(sources, { version: 1, annotations: new Map(), versionSeparator: '@' });
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'beta', effect: 'deny', appliesTo: { tags: ['beta'] }, when: { '!==': [{ var: 'request.headers.x-beta' }, 'on'] } }],
});
const keyOf = policy.contextKeyFor(catalog.entries('tool').map((entry) => entry.metadata));

let computed = 0;
function computeVisible(context: RequestContext): CatalogEntry[] {
  computed++;
  const decide = policy.forContext(context);
  return catalog.entries('tool').filter((entry) => decide(entry.metadata));
}

type Lists = (context: RequestContext) => readonly CatalogEntry[];
const implementations: Record<string, () => Lists> = {
  'plain LRU of 512 (before)': () => {
    const lists = new LRUCache<string, readonly CatalogEntry[]>({ max: 512 });
    return (context) => {
      const key = keyOf(context);
      let visible = lists.get(key);
      if (!visible) lists.set(key, (visible = computeVisible(context)));
      return visible;
    };
  },
  'list-cache of 512 (now)': () => {
    const lists = createListCache<CatalogEntry>(512);
    return (context) => {
      const key = keyOf(context);
      return lists.get(key) ?? lists.admit(key, computeVisible(context));
    };
  },
};

const heapBytes = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};
const recurring = Array.from({ length: 8 }, (_, index) => createRequestContext({ request: { headers: { 'x-beta': index === 0 ? 'on' : `team-${index}` } } }));
const requests = 20_000;

/** Every `every`-th request is a recurring caller (each back after 8 × every requests); the rest are one-offs. */
function run(lists: Lists, every: number): { recurringComputed: number } {
  let recurringComputed = 0;
  for (let index = 0; index < requests; index++) {
    if (index % every === 0) {
      const before = computed;
      lists(recurring[(index / every) % 8]!);
      recurringComputed += computed - before;
    } else lists(createRequestContext({ request: { headers: { 'x-beta': `one-off-${index}` } } }));
  }
  return { recurringComputed };
}

// Correctness first: both return what deciding every tool returns, for recurring and one-off callers.
for (const [name, create] of Object.entries(implementations)) {
  const lists = create();
  for (const context of [...recurring, ...recurring, ...recurring, createRequestContext()]) {
    const expected = catalog.entries('tool').filter((entry) => policy.evaluate(context, entry.metadata));
    if (JSON.stringify(lists(context).map((entry) => entry.key)) !== JSON.stringify(expected.map((entry) => entry.key))) throw new Error(`${name}: wrong list`);
  }
}

const results: Array<Record<string, number | string>> = [];
console.log(`list cache, ${toolCount} tools, ${requests} requests, 8 recurring callers among one-offs`);
console.log('  gap between a caller’s visits   cache                        recurring lists computed   heap held MB');
for (const every of [2, 64, 125]) {
  for (const [name, create] of Object.entries(implementations)) {
    // The cache is held through `held` so that dropping it is a write a later read could see.
    const held: { lists: Lists | undefined } = { lists: create() };
    const { recurringComputed } = run(held.lists!, every);
    const withCache = heapBytes();
    held.lists = undefined;
    const heldMb = (withCache - heapBytes()) / 1024 / 1024;
    results.push({ gap: 8 * every, cache: name, recurringRequests: Math.ceil(requests / every), recurringComputed, heldMb: Number(heldMb.toFixed(2)) });
    console.log(
      `  ${String(8 * every).padStart(29)}   ${name.padEnd(28)} ${`${recurringComputed} of ${Math.ceil(requests / every)}`.padStart(24)}   ${heldMb.toFixed(2).padStart(12)}`,
    );
  }
  const [before, now] = results.slice(-2) as [Record<string, number>, Record<string, number>];
  console.log(
    `  ${''.padStart(29)}   now/before: recurring lists computed ${(now['recurringComputed']! / before['recurringComputed']!).toFixed(2)}x, heap held ${(now['heldMb']! / before['heldMb']!).toFixed(2)}x`,
  );
}
writeFileSync('bench/results/list-cache.json', `${JSON.stringify({ node: process.version, results }, null, 2)}\n`);
console.log('wrote bench/results/list-cache.json');

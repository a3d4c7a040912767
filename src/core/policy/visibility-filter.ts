import { LRUCache } from 'lru-cache';
import type { PrimitiveMetadata, RequestContext } from '../context.js';
import { PolicyOptionError } from '../errors.js';
import type { Policy } from './types.js';

export interface VisibilityFilterOptions {
  /** Most distinct contexts remembered per registry version (bounded memory with unique callers). Default 1,000; 0 disables. */
  cacheSize?: number;
  /**
   * Lists shorter than this are evaluated every time: building a key costs more than a few
   * evaluations (measured in bench/). Default 16.
   */
  minItemsToCache?: number;
}

/** Filters one registry version's items for each request, caching whole visible lists per context projection. */
export interface VisibilityFilter<T> {
  visible(context: RequestContext): readonly T[];
  isVisible(context: RequestContext, item: T): boolean;
}

/**
 * Creates the filter for a fixed list of items (one registry version; create a new filter when
 * the registry or the policy changes). The cache key is the context's projection onto exactly
 * what the policy and these items' requirements read, so two callers share an entry only when
 * no decision could tell them apart.
 */
export function createVisibilityFilter<T>(
  policy: Policy,
  items: readonly T[],
  metadataOf: (item: T) => PrimitiveMetadata,
  options: VisibilityFilterOptions = {},
): VisibilityFilter<T> {
  const cacheSize = options.cacheSize ?? 1000;
  const minItems = options.minItemsToCache ?? 16;
  if (!Number.isInteger(cacheSize) || cacheSize < 0) throw new PolicyOptionError(`option cacheSize must be a non-negative integer, got ${String(cacheSize)}`);
  if (!Number.isInteger(minItems) || minItems < 0) throw new PolicyOptionError(`option minItemsToCache must be a non-negative integer, got ${String(minItems)}`);
  const metadata = items.map(metadataOf);

  function computeVisible(context: RequestContext): readonly T[] {
    const visible: T[] = [];
    for (let index = 0; index < items.length; index++) if (policy.evaluate(context, metadata[index]!)) visible.push(items[index]!);
    return Object.freeze(visible);
  }

  const isVisible = (context: RequestContext, item: T) => policy.evaluate(context, metadataOf(item));
  const useCache = policy.cacheable && cacheSize > 0 && items.length >= minItems;
  if (!useCache) return { visible: computeVisible, isVisible };

  const contextKey = policy.contextKeyFor(metadata);
  const visibleByContext = new LRUCache<string, readonly T[]>({ max: cacheSize });
  return {
    visible(context) {
      const key = contextKey(context);
      const cached = visibleByContext.get(key);
      if (cached) return cached;
      const visible = computeVisible(context);
      visibleByContext.set(key, visible);
      return visible;
    },
    isVisible,
  };
}

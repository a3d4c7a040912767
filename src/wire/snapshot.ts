import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { PrimitiveAnnotation, PrimitiveKind } from '../core/context.js';
import { buildCatalog, type Catalog, type PrimitiveSource } from '../adapter/catalog.js';
import type { ListItem } from '../adapter/list-items.js';
import { metadataKey, readGateMeta } from '../adapter/metadata.js';
import type { MatchableTemplates } from '../adapter/routing.js';
import type { Overlay } from './overlay.js';
import { RelayedError } from './relayed-error.js';
import { fetchWholeList, upstreamLists, type ForwardOptions } from './upstream.js';

/**
 * What the wire binding knows of one upstream at one moment: its whole lists, the catalog built
 * from them, and per kind either the items by registry key or the error the upstream answered
 * the list with (replayed to every list request of that kind, so nothing unfiltered is ever
 * forwarded). Immutable: a refresh builds a new one.
 */
export interface UpstreamSnapshot {
  readonly catalog: Catalog;
  /** Items by registry key (name; URI for resources), in the upstream's order. */
  itemsOf(kind: PrimitiveKind): ReadonlyMap<string, ListItem>;
  /** The upstream's error for this list, if it refused it (no such capability, say). */
  listError(kind: PrimitiveKind): RelayedError | undefined;
  readonly templates: MatchableTemplates;
}

const kinds = Object.keys(upstreamLists) as PrimitiveKind[];

/** Fetches every page of the four lists and builds the catalog; an error that is not JSON-RPC (a lost connection) rejects. */
export async function fetchSnapshot(client: Client, version: number, overlay: Overlay, versionSeparator: string, options?: ForwardOptions): Promise<UpstreamSnapshot> {
  const fetched = await Promise.all(
    kinds.map(async (kind) => {
      const { method, field } = upstreamLists[kind];
      try {
        return { kind, items: await fetchWholeList(client, method, field, options) };
      } catch (error) {
        if (error instanceof RelayedError) return { kind, items: [], error };
        throw error;
      }
    }),
  );
  const itemsByKind = new Map<PrimitiveKind, Map<string, ListItem>>();
  const errors = new Map<PrimitiveKind, RelayedError>();
  const sources: PrimitiveSource[] = [];
  const annotations = new Map<string, PrimitiveAnnotation>();
  for (const { kind, items, error } of fetched as { kind: PrimitiveKind; items: ListItem[]; error?: RelayedError }[]) {
    if (error) errors.set(kind, error);
    const byKey = new Map<string, ListItem>();
    itemsByKind.set(kind, byKey);
    for (const item of items) {
      const source = sourceOf(kind, item);
      if (source === undefined) continue;
      byKey.set(source.key, item);
      sources.push(source);
      // The primitive's own `_meta['mcp-gate']` wins; the overlay annotates only those without one.
      if (readGateMeta(item['_meta']) !== undefined) continue;
      const annotation = overlay.annotationFor(kind, source.key);
      if (annotation !== undefined) annotations.set(metadataKey(kind, source.key), annotation);
    }
  }
  const catalog = buildCatalog(sources, { version, annotations, versionSeparator });
  return {
    catalog,
    itemsOf: (kind) => itemsByKind.get(kind) ?? new Map(),
    listError: (kind) => errors.get(kind),
    templates: matchableTemplates(catalog),
  };
}

/** A list item as a catalog source; undefined for an item without the fields that name it. */
function sourceOf(kind: PrimitiveKind, item: ListItem): PrimitiveSource | undefined {
  const name = item['name'];
  if (typeof name !== 'string' || name === '') return undefined;
  const meta = item['_meta'];
  if (kind === 'resource') {
    const uri = item['uri'];
    return typeof uri === 'string' ? { kind, key: uri, name, uri, meta } : undefined;
  }
  if (kind === 'resourceTemplate') {
    const uriTemplate = item['uriTemplate'];
    return typeof uriTemplate === 'string' ? { kind, key: name, name, uriTemplate, meta } : undefined;
  }
  return { kind, key: name, name, meta };
}

/**
 * The upstream's templates in the shape routing.ts matches URIs with, using the SDK's own
 * RFC 6570 matcher. A template the matcher cannot parse matches every URI, so a read that might
 * be served by it is decided as if it were (fail closed).
 */
function matchableTemplates(catalog: Catalog): MatchableTemplates {
  const templates: Record<string, { resourceTemplate: { uriTemplate: { match(uri: string): unknown } } }> = {};
  for (const entry of catalog.entries('resourceTemplate')) {
    let matcher: { match(uri: string): unknown };
    try {
      const parsed = new UriTemplate(entry.metadata.uriTemplate ?? '');
      matcher = {
        match(uri) {
          try {
            return parsed.match(uri);
          } catch {
            return {};
          }
        },
      };
    } catch {
      matcher = { match: () => ({}) };
    }
    templates[entry.key] = { resourceTemplate: { uriTemplate: matcher } };
  }
  return templates;
}

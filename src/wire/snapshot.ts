import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { PrimitiveAnnotation, PrimitiveKind } from '../core/primitive-metadata.js';
import { buildCatalog, type Catalog, type CatalogEntry, type PrimitiveSource } from '../adapter/catalog.js';
import { visibleItems, type ListCounts, type ListItem } from '../adapter/list-items.js';
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

/** One list as the upstream answered it: every item of every page, or its JSON-RPC error. */
interface FetchedList {
  readonly kind: PrimitiveKind;
  readonly items: readonly ListItem[];
  readonly error?: RelayedError;
}

/** Fetches every page of the four lists and builds the catalog; an error that is not JSON-RPC (a lost connection) rejects. */
export async function fetchSnapshot(client: Client, version: number, overlay: Overlay, versionSeparator: string, options?: ForwardOptions): Promise<UpstreamSnapshot> {
  return buildSnapshot(await fetchLists(client, options), version, overlay, versionSeparator);
}

/** Every page of the four lists; a list the upstream refuses with a JSON-RPC error keeps the error. */
export async function fetchLists(client: Client, options?: ForwardOptions): Promise<readonly FetchedList[]> {
  return Promise.all(
    kinds.map(async (kind): Promise<FetchedList> => {
      const { method, field } = upstreamLists[kind];
      try {
        return { kind, items: await fetchWholeList(client, method, field, options) };
      } catch (error) {
        if (error instanceof RelayedError) return { kind, items: [], error };
        throw error;
      }
    }),
  );
}

function buildSnapshot(fetched: readonly FetchedList[], version: number, overlay: Overlay, versionSeparator: string): UpstreamSnapshot {
  const itemsByKind = new Map<PrimitiveKind, Map<string, ListItem>>();
  const errors = new Map<PrimitiveKind, RelayedError>();
  const sources: PrimitiveSource[] = [];
  const annotations = new Map<string, PrimitiveAnnotation>();
  for (const { kind, items, error } of fetched) {
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

/**
 * The snapshots of one wire gate, shared by its connections. Every downstream session of the
 * proxy has its own upstream session, whose lists may differ (an upstream may list by the
 * client's capabilities or headers), so each connection still fetches its own lists; when they
 * are the same as another connection's, byte for byte as JSON, it gets that connection's snapshot
 * (the catalog, the items and the lists the policy view caches per catalog) rather than a copy.
 * With the 1,000-tool bench upstream a session's heap went from about 1,960 kB to 120–150 kB
 * (bench/proxy-memory.ts). A snapshot is forgotten once no connection holds it.
 */
export class SharedSnapshots {
  readonly #overlay: Overlay;
  readonly #versionSeparator: string;
  readonly #exposeRequirements: boolean;
  readonly #byContent = new Map<string, WeakRef<UpstreamSnapshot>>();
  readonly #forget = new FinalizationRegistry<string>((contentKey) => {
    if (this.#byContent.get(contentKey)?.deref() === undefined) this.#byContent.delete(contentKey);
  });
  /** The client-facing items of each visible list (the policy view keeps one array per catalog and context). */
  readonly #publicItems = new WeakMap<readonly CatalogEntry[], { items: readonly ListItem[]; counts: ListCounts }>();
  #version = 0;

  constructor(overlay: Overlay, settings: { readonly versionSeparator: string; readonly exposeRequirements: boolean }) {
    this.#overlay = overlay;
    this.#versionSeparator = settings.versionSeparator;
    this.#exposeRequirements = settings.exposeRequirements;
  }

  /** How many distinct snapshots are held now. */
  get size(): number {
    let held = 0;
    for (const reference of this.#byContent.values()) if (reference.deref() !== undefined) held++;
    return held;
  }

  /** The upstream's lists now, as a snapshot shared with every connection whose upstream listed the same. */
  async fetch(client: Client, options?: ForwardOptions): Promise<UpstreamSnapshot> {
    const fetched = await fetchLists(client, options);
    const contentKey = contentKeyOf(fetched);
    if (contentKey === undefined) return buildSnapshot(fetched, ++this.#version, this.#overlay, this.#versionSeparator);
    const shared = this.#byContent.get(contentKey)?.deref();
    if (shared !== undefined) return shared;
    const snapshot = buildSnapshot(fetched, ++this.#version, this.#overlay, this.#versionSeparator);
    this.#byContent.set(contentKey, new WeakRef(snapshot));
    this.#forget.register(snapshot, contentKey);
    return snapshot;
  }

  /** The items a client sees for these visible entries of `snapshot` (computed once per visible list). */
  visibleItems(snapshot: UpstreamSnapshot, kind: PrimitiveKind, visible: readonly CatalogEntry[]): { items: readonly ListItem[]; counts: ListCounts } {
    let listed = this.#publicItems.get(visible);
    if (!listed) this.#publicItems.set(visible, (listed = visibleItems(visible, snapshot.itemsOf(kind), this.#exposeRequirements)));
    return listed;
  }
}

/**
 * A digest of the lists as JSON (the items in the upstream's order, with their keys in its
 * order, and the errors): equal digests are equal lists. Undefined for lists that are not JSON
 * (an in-process upstream may hand over anything): those are never shared.
 */
function contentKeyOf(fetched: readonly FetchedList[]): string | undefined {
  const digest = createHash('sha256');
  try {
    for (const { kind, items, error } of fetched) {
      digest.update(kind);
      digest.update(JSON.stringify(error === undefined ? [items] : [items, error.code, error.message, error.data ?? null]));
    }
  } catch {
    return undefined;
  }
  return digest.digest('base64');
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

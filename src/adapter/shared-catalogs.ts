import type { PrimitiveAnnotation } from '../core/primitive-metadata.js';
import { buildCatalog, type Catalog, type PrimitiveSource } from './catalog.js';
import { gateMetaKey, readGateMeta } from './metadata.js';

/** What a catalog depends on besides the registrations: the gate's settings, fixed per gate. */
export interface CatalogSettings {
  readonly annotations: ReadonlyMap<string, PrimitiveAnnotation>;
  readonly versionSeparator: string;
}

/**
 * Catalog entries shared by every server one gate installs on that registers the same primitives
 * with the same annotations, as a `createMcpHandler` factory does for each stateless request: the
 * metadata is parsed, built and frozen once instead of per request, and the policy's rule plans
 * (keyed by metadata) carry over from request to request. Each server still gets a catalog object
 * of its own, so what is cached per catalog (lists, context plans) stays per server: a policy
 * still sees each new server's first list request.
 *
 * Keyed by what the registrations are now — kind, key, name, location, enabled and the
 * annotation's data as JSON — never by the identity of an annotation object that may be changed
 * in place, so a changed annotation is a different key. A shared catalog is built from that JSON,
 * not from the live objects, so it is exactly what its key says. Registries with an annotation
 * that is not plain JSON data (a getter, a class instance, a function, NaN, undefined) are not
 * shared, and neither are catalogs with an invalid annotation: those are built afresh each time.
 */
export class SharedCatalogs {
  readonly #settings: CatalogSettings;
  /** Oldest first; bounded so a server whose registry differs per request cannot grow it. */
  readonly #catalogs = new Map<string, Catalog>();

  constructor(settings: CatalogSettings) {
    this.#settings = settings;
  }

  /** The catalog of these registrations: a shared one when they are plain data, else one built for `version`. */
  catalog(sources: Iterable<PrimitiveSource>, version: number): Catalog {
    const snapshots = snapshotSources(sources);
    if (!Array.isArray(snapshots)) return this.#build(snapshots.sources, version);
    const key = JSON.stringify(
      snapshots.map(({ kind, key, name, uri, uriTemplate, enabled, annotationJson }) => [kind, key, name, uri, uriTemplate, enabled, annotationJson]),
    );
    const shared = this.#catalogs.get(key);
    if (shared !== undefined) return { ...shared, version };
    const catalog = this.#build(snapshots.map(snapshotSource), version);
    if (catalog.errors.length === 0) {
      if (this.#catalogs.size >= maxSharedCatalogs) this.#catalogs.delete(this.#catalogs.keys().next().value!);
      this.#catalogs.set(key, catalog);
    }
    return catalog;
  }

  #build(sources: Iterable<PrimitiveSource>, version: number): Catalog {
    return buildCatalog(sources, { version, annotations: this.#settings.annotations, versionSeparator: this.#settings.versionSeparator });
  }
}

const maxSharedCatalogs = 16;
/** Deeper annotations are not shared (a cycle ends here too); real ones are two or three levels deep. */
const maxAnnotationDepth = 16;

interface SourceSnapshot extends PrimitiveSource {
  /** The annotation as JSON; undefined when the registration has none. */
  readonly annotationJson: string | undefined;
}

/** The sources with their annotations as JSON, or, when one is not plain data, the sources as read. */
function snapshotSources(sources: Iterable<PrimitiveSource>): SourceSnapshot[] | { readonly sources: PrimitiveSource[] } {
  const read = [...sources];
  const snapshots: SourceSnapshot[] = [];
  for (const source of read) {
    const raw = readGateMeta(source.meta);
    const annotationJson = raw === undefined ? undefined : plainJson(raw, maxAnnotationDepth);
    if (raw !== undefined && annotationJson === undefined) return { sources: read };
    const { kind, key, name, uri, uriTemplate } = source;
    snapshots.push({ kind, key, name, uri, uriTemplate, enabled: source.enabled !== false, annotationJson });
  }
  return snapshots;
}

function snapshotSource({ annotationJson, ...source }: SourceSnapshot): PrimitiveSource {
  return annotationJson === undefined ? source : { ...source, meta: { [gateMetaKey]: JSON.parse(annotationJson) as unknown } };
}

/**
 * `value` as JSON when it is plain data that JSON keeps exactly (strings, finite numbers,
 * booleans, null, arrays without holes, objects of Object.prototype or none whose properties are
 * all data properties); undefined otherwise, and when reading it throws.
 */
function plainJson(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (typeof value !== 'object' || depth === 0) return undefined;
  try {
    if (Array.isArray(value)) {
      const items: string[] = [];
      for (let index = 0; index < value.length; index++) {
        const item = Object.getOwnPropertyDescriptor(value, index);
        const json = item !== undefined && 'value' in item ? plainJson(item.value, depth - 1) : undefined;
        if (json === undefined) return undefined;
        items.push(json);
      }
      return `[${items.join(',')}]`;
    }
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return undefined;
    const members: string[] = [];
    for (const name of Object.keys(value)) {
      const property = Object.getOwnPropertyDescriptor(value, name);
      const json = property !== undefined && 'value' in property ? plainJson(property.value, depth - 1) : undefined;
      if (json === undefined) return undefined;
      members.push(`${JSON.stringify(name)}:${json}`);
    }
    return `{${members.join(',')}}`;
  } catch {
    return undefined;
  }
}

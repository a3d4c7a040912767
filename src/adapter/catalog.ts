import { createPrimitiveMetadata, type PrimitiveAnnotation, type PrimitiveKind, type PrimitiveMetadata } from '../core/primitive-metadata.js';
import { MetadataError, joinPath } from '../core/errors.js';
import { describePrimitive, gateMetaKey, mergeAnnotations, metadataKey, parseRegisteredAnnotation, readGateMeta } from './metadata.js';
import { compareVersionsDescending, publicToolName } from './versioning.js';

/** One registration as an SDK adapter reads it from its server. */
export interface PrimitiveSource {
  readonly kind: PrimitiveKind;
  /** Registry key: tool, prompt and template name, resource URI. */
  readonly key: string;
  /** The primitive's name as policies match it (a resource's `name`, not its URI). */
  readonly name: string;
  readonly uri?: string | undefined;
  readonly uriTemplate?: string | undefined;
  /** The registration's `_meta`; its `mcp-gate` entry is the annotation. */
  readonly meta?: unknown;
  /** False when the server switched the registration off (the SDK's `disable()`). */
  readonly enabled?: boolean | undefined;
}

/** What the gate knows about one registration. */
export interface CatalogEntry {
  readonly kind: PrimitiveKind;
  readonly key: string;
  /** The name clients see; differs from `key` only for versioned tools. */
  readonly publicName: string;
  readonly versioned: boolean;
  readonly enabled: boolean;
  readonly metadata: PrimitiveMetadata;
  /** The same metadata without capability requirements, for `onMissingCapabilities: 'allow'`. */
  readonly metadataIgnoringCapabilities: PrimitiveMetadata;
  /** Set when the annotation is invalid; such an entry is hidden from everyone (fail closed). */
  readonly metadataError?: MetadataError | undefined;
}

/** An immutable snapshot of a server's registrations at one registry version. */
export interface Catalog {
  readonly version: number;
  get(kind: PrimitiveKind, key: string): CatalogEntry | undefined;
  /** Entries of one kind in registration order. */
  entries(kind: PrimitiveKind): readonly CatalogEntry[];
  /** Every registration serving a public tool name, highest version first. */
  toolCandidates(publicName: string): readonly CatalogEntry[] | undefined;
  readonly errors: readonly MetadataError[];
}

export interface CatalogOptions {
  readonly version: number;
  readonly annotations: ReadonlyMap<string, PrimitiveAnnotation>;
  readonly versionSeparator: string;
}

export function buildCatalog(sources: Iterable<PrimitiveSource>, options: CatalogOptions): Catalog {
  const byKind = new Map<PrimitiveKind, Map<string, CatalogEntry>>();
  const toolGroups = new Map<string, CatalogEntry[]>();
  const errors: MetadataError[] = [];
  for (const source of sources) {
    const entry = createEntry(source, options);
    if (entry.metadataError) errors.push(entry.metadataError);
    let entries = byKind.get(source.kind);
    if (!entries) byKind.set(source.kind, (entries = new Map()));
    entries.set(source.key, entry);
    if (source.kind === 'tool') {
      const group = toolGroups.get(entry.publicName);
      if (group) group.push(entry);
      else toolGroups.set(entry.publicName, [entry]);
    }
  }
  for (const group of toolGroups.values()) {
    // Array#sort is stable, so equal versions keep registration order.
    group.sort((left, right) => compareVersionsDescending(left.metadata.version, right.metadata.version));
  }
  const listed = new Map<PrimitiveKind, readonly CatalogEntry[]>();
  for (const [kind, entries] of byKind) listed.set(kind, [...entries.values()]);
  return {
    version: options.version,
    get: (kind, key) => byKind.get(kind)?.get(key),
    entries: (kind) => listed.get(kind) ?? [],
    toolCandidates: (publicName) => toolGroups.get(publicName),
    errors,
  };
}

/** Validates every annotation a server has now; throws the first error, naming primitive and field. */
export function assertCatalogValid(catalog: Catalog): void {
  const [first] = catalog.errors;
  if (first) throw first;
}

function createEntry(source: PrimitiveSource, options: CatalogOptions): CatalogEntry {
  const optionKey = metadataKey(source.kind, source.key);
  let annotation: PrimitiveAnnotation;
  let metadataError: MetadataError | undefined;
  try {
    annotation = mergeAnnotations(readAnnotation(source), options.annotations.get(optionKey));
  } catch (error) {
    if (!(error instanceof MetadataError)) throw error;
    metadataError = error;
    annotation = {};
  }
  const versionedName = source.kind === 'tool' ? publicToolName(source.key, annotation.version, options.versionSeparator) : undefined;
  const name = versionedName ?? source.name;
  const location = { uri: source.uri, uriTemplate: source.uriTemplate };
  const metadata = createPrimitiveMetadata(source.kind, name, annotation, location);
  const metadataIgnoringCapabilities =
    metadata.requires.capabilities.length === 0
      ? metadata
      : createPrimitiveMetadata(source.kind, name, { ...annotation, requires: { ...annotation.requires, capabilities: [] } }, location);
  return {
    kind: source.kind,
    key: source.key,
    publicName: source.kind === 'tool' ? name : source.key,
    versioned: versionedName !== undefined,
    enabled: source.enabled !== false,
    metadata,
    metadataIgnoringCapabilities,
    metadataError,
  };
}

/** The registration's annotation as its `_meta` holds it now (read afresh on every build, never by identity). */
function readAnnotation(source: PrimitiveSource): PrimitiveAnnotation | undefined {
  const raw = readGateMeta(source.meta);
  if (raw === undefined) return undefined;
  return parseRegisteredAnnotation(raw, describePrimitive(source.kind, source.key), joinPath('_meta', gateMetaKey));
}

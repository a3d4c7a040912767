import fc from 'fast-check';
import { createPrimitiveMetadata, type PrimitiveAnnotation, type PrimitiveKind, type PrimitiveMetadata } from '../core/primitive-metadata.js';
import { capabilityPaths } from './callers.js';

/** The four primitive kinds, for building arbitraries over them. */
export const primitiveKinds: readonly PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

/** The domains annotations() draws groups, tags, requirements, endpoints and versions from. */
export interface AnnotationOptions {
  readonly groups?: readonly string[];
  readonly tags?: readonly string[];
  readonly capabilities?: readonly string[];
  /** Header requirements a primitive may carry, as name → required value. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly endpoints?: readonly string[];
  readonly versions?: readonly string[];
}

const defaults = {
  groups: ['canary', 'beta', 'admin'],
  tags: ['experimental', 'read-only'],
  endpoints: ['/mcp/admin', '/mcp/admin/**', '/mcp'],
  headers: { 'X-Canary': '1' },
  versions: ['1.0.0', '1.4.0', '2.0.0-beta.1', '2.0.0'],
};

/** What a server author writes in `_meta['mcp-gate']` (or the gate's `metadata` option); valid by construction. */
export function annotations(options: AnnotationOptions = {}): fc.Arbitrary<PrimitiveAnnotation> {
  const headerEntries = Object.entries(options.headers ?? defaults.headers);
  return fc
    .record(
      {
        groups: fc.subarray([...(options.groups ?? defaults.groups)]),
        tags: fc.subarray([...(options.tags ?? defaults.tags)]),
        capabilities: fc.subarray([...(options.capabilities ?? capabilityPaths)], { maxLength: 2 }),
        headers: fc.subarray(headerEntries, { maxLength: 1 }),
        endpoints: fc.subarray([...(options.endpoints ?? defaults.endpoints)]),
      },
      { requiredKeys: [] },
    )
    .map((picked) => {
      const annotation: { -readonly [K in keyof PrimitiveAnnotation]: PrimitiveAnnotation[K] } = {};
      if (picked.groups) annotation.groups = picked.groups;
      if (picked.tags) annotation.tags = picked.tags;
      if (picked.endpoints) annotation.endpoints = picked.endpoints;
      if (picked.capabilities || picked.headers) {
        annotation.requires = {};
        if (picked.capabilities) annotation.requires.capabilities = picked.capabilities;
        if (picked.headers) annotation.requires.headers = Object.fromEntries(picked.headers);
      }
      return annotation;
    });
}

/** Options of primitiveMetadata: annotations()' domains, plus the kinds and names to draw. */
export interface PrimitiveMetadataOptions extends AnnotationOptions {
  readonly kinds?: readonly PrimitiveKind[];
  readonly names?: readonly string[];
}

/** Frozen PrimitiveMetadata as policies see it, for testing policies without a server. */
export function primitiveMetadata(options: PrimitiveMetadataOptions = {}): fc.Arbitrary<PrimitiveMetadata> {
  return fc
    .record({
      kind: fc.constantFrom(...(options.kinds ?? primitiveKinds)),
      name: fc.constantFrom(...(options.names ?? ['search', 'deploy', 'admin_users', 'summarize', 'greet', 'notes'])),
      annotation: annotations(options),
      version: fc.option(fc.constantFrom(...(options.versions ?? defaults.versions)), { nil: undefined, freq: 4 }),
    })
    .map(({ kind, name, annotation, version }) =>
      createPrimitiveMetadata(kind, name, version === undefined ? annotation : { ...annotation, version }, locationOf(kind, name)),
    );
}

function locationOf(kind: PrimitiveKind, name: string): { uri?: string; uriTemplate?: string } {
  if (kind === 'resource') return { uri: `docs://${name}` };
  if (kind === 'resourceTemplate') return { uriTemplate: `${name}://{id}` };
  return {};
}

import { z } from 'zod';
import { deepFreeze } from './context-input.js';

/** The four kinds of MCP primitive a policy decides about. */
export type PrimitiveKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** The list request that shows primitives of this kind: what a primitive is decided for when no call names it. */
export function listMethodOf(kind: PrimitiveKind): string {
  switch (kind) {
    case 'tool':
      return 'tools/list';
    case 'prompt':
      return 'prompts/list';
    case 'resource':
      return 'resources/list';
    case 'resourceTemplate':
      return 'resources/templates/list';
  }
}

/** Metadata of one tool, prompt, resource or resource template, as policies see it. */
export interface PrimitiveMetadata {
  readonly kind: PrimitiveKind;
  readonly name: string;
  readonly uri?: string | undefined;
  readonly uriTemplate?: string | undefined;
  readonly version?: string | undefined;
  readonly groups: readonly string[];
  readonly tags: readonly string[];
  readonly requires: {
    /** Capability paths such as `sampling`, `elicitation.url`, `extensions.com.example/report-export`. */
    readonly capabilities: readonly string[];
    /** Header name (case-insensitive) → exact value the request must carry. */
    readonly headers: Readonly<Record<string, string>>;
  };
  /** Globs over the URL path; empty means every endpoint. */
  readonly endpoints: readonly string[];
}

/** The zod schema of a PrimitiveKind. */
export const primitiveKindSchema = z.enum(['tool', 'prompt', 'resource', 'resourceTemplate']);

const nonEmpty = z.string().min(1);

/** The part of the metadata a server author writes (in `_meta['mcp-gate']` or the `metadata` option). */
export const primitiveAnnotationSchema = z.strictObject({
  version: nonEmpty.optional(),
  groups: z.array(nonEmpty).optional(),
  tags: z.array(nonEmpty).optional(),
  requires: z
    .strictObject({
      capabilities: z.array(nonEmpty).optional(),
      headers: z.record(nonEmpty, z.string()).optional(),
    })
    .optional(),
  endpoints: z.array(nonEmpty).optional(),
});

/** What a server author writes about a primitive: version, groups, tags, requirements, endpoints. */
export type PrimitiveAnnotation = z.infer<typeof primitiveAnnotationSchema>;

/** The zod schema of PrimitiveMetadata (the shape createPrimitiveMetadata builds). */
export const primitiveMetadataSchema = z.strictObject({
  kind: primitiveKindSchema,
  name: nonEmpty,
  uri: z.string().optional(),
  uriTemplate: z.string().optional(),
  version: nonEmpty.optional(),
  groups: z.array(nonEmpty),
  tags: z.array(nonEmpty),
  requires: z.strictObject({
    capabilities: z.array(nonEmpty),
    headers: z.record(nonEmpty, z.string()),
  }),
  endpoints: z.array(nonEmpty),
});

/** Builds frozen PrimitiveMetadata from a kind, a name and the author's annotation; header names lower-cased. */
export function createPrimitiveMetadata(
  kind: PrimitiveKind,
  name: string,
  annotation: PrimitiveAnnotation = {},
  location: { uri?: string; uriTemplate?: string } = {},
): PrimitiveMetadata {
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(annotation.requires?.headers ?? {})) headers[header.toLowerCase()] = value;
  const metadata = {
    kind,
    name,
    uri: location.uri,
    uriTemplate: location.uriTemplate,
    version: annotation.version,
    groups: [...(annotation.groups ?? [])],
    tags: [...(annotation.tags ?? [])],
    requires: { capabilities: [...(annotation.requires?.capabilities ?? [])], headers },
    endpoints: [...(annotation.endpoints ?? [])],
  };
  for (const { key, create } of hiddenSlots) Object.defineProperty(metadata, key, { value: create(), enumerable: false });
  return deepFreeze(metadata);
}

/**
 * Hidden slots of metadata built by createPrimitiveMetadata. A module that derives data from
 * metadata registers one when it loads (the metadata is frozen, so what is derived never goes
 * stale), and all metadata built from then on carries a fresh, mutable value under that key:
 * non-enumerable, so keys, JSON, spreads and equality never see it. policy/rule-plan.ts keeps
 * each primitive's plan in one; what is in a slot is its owner's business, not this module's.
 */
const hiddenSlots: Array<{ readonly key: symbol; readonly create: () => object }> = [];

/** Gives all metadata built from now on a hidden slot under `key`, holding `create()`'s value. */
export function addHiddenMetadataSlot(key: symbol, create: () => object): void {
  hiddenSlots.push({ key, create });
}

import { z } from 'zod';
import { primitiveAnnotationSchema, type PrimitiveAnnotation, type PrimitiveKind } from '../core/primitive-metadata.js';
import { MetadataError, joinPath, type PolicyIssue } from '../core/errors.js';
import { compileGlob, type GlobMatcher } from '../core/logic/glob-matcher.js';

// An overlay annotates an upstream's primitives from outside, for servers that cannot put
// `_meta['mcp-gate']` into their list results (any server in any language behind the proxy).
// Keys are the `metadata` option's (`tool:NAME`, `prompt:NAME`, `resource:URI`, `template:NAME`)
// with a glob in place of the name or URI; see docs/proxy.md.

const keyPattern = /^(tool|prompt|resource|template):(.+)$/;
const keyMessage = 'key must be "tool:GLOB", "prompt:GLOB", "resource:GLOB" (over URIs) or "template:GLOB"';

/** The overlay file's schema (docs/overlay.schema.json is generated from it). */
export const overlayDocumentSchema = z.strictObject({
  $schema: z.string().optional(),
  metadata: z.record(z.string().regex(keyPattern, keyMessage), primitiveAnnotationSchema),
});

/** An overlay file's contents: `metadata` keyed by `tool:GLOB`, `prompt:GLOB`, `resource:GLOB` or `template:GLOB`. */
export type OverlayDocument = z.infer<typeof overlayDocumentSchema>;

const kindsByPrefix: Readonly<Record<string, PrimitiveKind>> = { tool: 'tool', prompt: 'prompt', resource: 'resource', template: 'resourceTemplate' };

interface OverlayRule {
  readonly key: string;
  readonly kind: PrimitiveKind;
  readonly matches: GlobMatcher;
  readonly annotation: PrimitiveAnnotation;
}

/** A compiled overlay: which annotation a primitive gets, and which globs matched nothing. */
export interface Overlay {
  /** The merged annotation of every rule matching (kind, name or URI), in file order; undefined when none does. */
  annotationFor(kind: PrimitiveKind, key: string): PrimitiveAnnotation | undefined;
  /** The keys whose glob matches none of these primitives: a likely typo, reported as a warning. */
  unmatchedKeys(primitives: Iterable<{ readonly kind: PrimitiveKind; readonly key: string }>): string[];
}

/** An overlay that annotates nothing. */
export const emptyOverlay: Overlay = { annotationFor: () => undefined, unmatchedKeys: () => [] };

/**
 * Validates an overlay document once; a bad key or annotation is a MetadataError naming the key
 * and field (`metadata["tool:x"].groups[0]: …`). A later key's fields win over an earlier one's.
 */
export function compileOverlay(document: unknown, source = 'overlay'): Overlay {
  const parsed = overlayDocumentSchema.safeParse(document);
  if (!parsed.success) {
    const issues: PolicyIssue[] = parsed.error.issues.map((issue) => ({
      code: 'invalid_metadata',
      path: issue.path.reduce<string>((path, key) => joinPath(path, typeof key === 'number' ? key : String(key)), ''),
      // zod reports a record key that fails its pattern as "Invalid key in record": say what a key must be.
      message: issue.code === 'invalid_key' ? keyMessage : issue.message,
    }));
    throw new MetadataError(source, issues);
  }
  const rules: OverlayRule[] = Object.entries(parsed.data.metadata).map(([key, annotation]) => {
    const [, prefix, glob] = keyPattern.exec(key)!;
    return { key, kind: kindsByPrefix[prefix!]!, matches: compileGlob(glob!), annotation };
  });
  return {
    annotationFor(kind, key) {
      let merged: PrimitiveAnnotation | undefined;
      for (const rule of rules) if (rule.kind === kind && rule.matches(key)) merged = { ...merged, ...rule.annotation };
      return merged;
    },
    unmatchedKeys(primitives) {
      const list = [...primitives];
      return rules.filter((rule) => !list.some((primitive) => primitive.kind === rule.kind && rule.matches(primitive.key))).map((rule) => rule.key);
    },
  };
}

/** The JSON Schema of overlay files (docs/overlay.schema.json), from the same zod schema compileOverlay checks with. */
export function createOverlayJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(overlayDocumentSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://mcp-gate.dev/overlay.schema.json',
    title: 'mcp-gate overlay',
    description:
      'Annotations for the primitives of an upstream behind `mcp-gate proxy`, by glob over names (URIs for resources); for primitives without their own _meta["mcp-gate"].',
  };
}

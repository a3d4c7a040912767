import { z } from 'zod';
import { createPrimitiveMetadata, primitiveAnnotationSchema, primitiveKindSchema, type PrimitiveMetadata } from '../primitive-metadata.js';
import { joinPath, MetadataError } from '../errors.js';
import { isBuiltMetadata } from './rule-plan.js';

// A Policy is handed metadata by adapters (built by createPrimitiveMetadata) and by users, who
// write it by hand or read it from JSON: `{ kind, name, groups }` and nothing else. The compiled
// rules and plans read every field, so metadata is brought to the built shape once, here, at the
// Policy's boundary; what cannot be is a MetadataError naming the field, never an engine's
// TypeError from deep inside a rule.

/** Metadata as a user may write it: kind and name, the rest as the annotation schema allows. */
const primitiveInputSchema = z.strictObject({
  kind: primitiveKindSchema,
  name: z.string().min(1),
  uri: z.string().optional(),
  uriTemplate: z.string().optional(),
  ...primitiveAnnotationSchema.shape,
});

// Frozen input cannot change, so it is normalised once; mutable input is normalised per call.
const normalised = new WeakMap<object, PrimitiveMetadata>();

/** `primitive` in the shape the compiled policy reads; throws MetadataError when it is not metadata. */
export function toPrimitiveMetadata(primitive: PrimitiveMetadata): PrimitiveMetadata {
  // Built by createPrimitiveMetadata (the adapters' and the fast path): nothing to do.
  if (isBuiltMetadata(primitive)) return primitive;
  return normalise(primitive);
}

function normalise(input: unknown): PrimitiveMetadata {
  const frozen = typeof input === 'object' && input !== null && Object.isFrozen(input);
  const known = frozen ? normalised.get(input) : undefined;
  if (known !== undefined) return known;
  let parsed: ReturnType<typeof primitiveInputSchema.safeParse>;
  try {
    parsed = primitiveInputSchema.safeParse(input);
  } catch {
    // A getter or a proxy that throws: still one error type.
    throw new MetadataError(describe(input), [{ code: 'invalid_metadata', path: '', message: 'could not read the metadata' }]);
  }
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      code: 'invalid_metadata' as const,
      path: issue.path.reduce<string>((path, key) => joinPath(path, typeof key === 'number' ? key : String(key)), ''),
      message: issue.message,
    }));
    throw new MetadataError(describe(input), issues);
  }
  const { kind, name, uri, uriTemplate, ...annotation } = parsed.data;
  const location = { ...(uri === undefined ? {} : { uri }), ...(uriTemplate === undefined ? {} : { uriTemplate }) };
  const metadata = createPrimitiveMetadata(kind, name, annotation, location);
  if (frozen) normalised.set(input, metadata);
  return metadata;
}

/** `tool "deploy"` when the input says that much, else `a tool` or `a primitive`. */
function describe(input: unknown): string {
  try {
    return describeReadable(input);
  } catch {
    return 'a primitive';
  }
}

function describeReadable(input: unknown): string {
  const { kind, name } = (typeof input === 'object' && input !== null ? input : {}) as { kind?: unknown; name?: unknown };
  const what = typeof kind === 'string' && primitiveKindSchema.safeParse(kind).success ? kind : undefined;
  if (typeof name === 'string' && name !== '') return `${what ?? 'primitive'} ${JSON.stringify(name.slice(0, 100))}`;
  return `a ${what ?? 'primitive'}`;
}

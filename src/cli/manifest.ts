import { z } from 'zod';
import { createPrimitiveMetadata, primitiveAnnotationSchema, primitiveKindSchema, type PrimitiveMetadata } from '../core/context.js';
import { toPolicyIssues } from '../core/policy/schema.js';
import { displayPath, formatIssues, InputError, readJson, resolvePath, UsageError, type CliIo } from './io.js';
import type { ParsedArgs } from './args.js';

/** One primitive as a manifest (and a cases file) writes it: kind, name, location, then the gate annotation. */
export const manifestPrimitiveSchema = primitiveAnnotationSchema.extend({
  kind: primitiveKindSchema,
  name: z.string().min(1),
  uri: z.string().min(1).optional(),
  uriTemplate: z.string().min(1).optional(),
});

export type ManifestPrimitive = z.infer<typeof manifestPrimitiveSchema>;

/** What `mcp-gate manifest --server` will print and `--manifest FILE` reads. */
export const manifestSchema = z.strictObject({
  $schema: z.string().optional(),
  server: z.strictObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
  primitives: z.array(manifestPrimitiveSchema),
});

export function toMetadata(primitive: ManifestPrimitive): PrimitiveMetadata {
  const { kind, name, uri, uriTemplate, ...annotation } = primitive;
  const location: { uri?: string; uriTemplate?: string } = {};
  if (uri !== undefined) location.uri = uri;
  if (uriTemplate !== undefined) location.uriTemplate = uriTemplate;
  return createPrimitiveMetadata(kind, name, annotation, location);
}

/** `tool search@2.0.0`, `resource workspace` — how primitives are named in tables and diffs. */
export function describeMetadata(metadata: PrimitiveMetadata): string {
  return `${metadata.kind} ${metadata.name}${metadata.version === undefined ? '' : `@${metadata.version}`}`;
}

/** Reads and checks a manifest file; every problem becomes one `file: path: message` line. */
export async function loadManifest(io: CliIo, path: string): Promise<PrimitiveMetadata[]> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const parsed = manifestSchema.safeParse(await readJson(io, absolutePath));
  if (!parsed.success) {
    throw new InputError(formatIssues(name, toPolicyIssues(parsed.error)));
  }
  const seen = new Map<string, number>();
  const problems: string[] = [];
  const primitives = parsed.data.primitives.map((primitive, index) => {
    // MCP identifies resources by URI; tools, prompts and templates by name (plus version here).
    const key = [primitive.kind, primitive.kind === 'resource' ? (primitive.uri ?? primitive.name) : primitive.name, primitive.version ?? ''].join('\u0000');
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push(`${name}: primitives[${index}]: duplicate of primitives[${earlier}]`);
    else seen.set(key, index);
    return toMetadata(primitive);
  });
  if (problems.length > 0) throw new InputError(problems.join('\n'));
  return primitives;
}

/**
 * The primitives a command works on. `--server MODULE` (load a module that builds an McpServer
 * and read its registrations) comes with the SDK gate; until then it says so rather than guess.
 */
export async function loadPrimitives(io: CliIo, args: ParsedArgs, command: string): Promise<PrimitiveMetadata[]> {
  const manifest = args.string('manifest');
  if (args.string('server') !== undefined) {
    throw new UsageError(`${command}: --server is not available yet; write the primitives to a file and pass --manifest FILE`);
  }
  if (manifest === undefined) throw new UsageError(`${command}: missing --manifest FILE; see "${command} --help"`);
  return loadManifest(io, manifest);
}

import { z } from 'zod';
import { createPrimitiveMetadata, primitiveAnnotationSchema, primitiveKindSchema, type PrimitiveMetadata } from '../core/primitive-metadata.js';
import { toPolicyIssues } from '../core/policy/schema.js';
import { displayPath, formatIssues, InputError, readJson, resolvePath, UsageError, type CliIo } from './io.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { writeLines } from './command.js';
import { loadServerModule, readServerManifest, type ServerManifest } from './server-module.js';
import { readUpstreamManifest, readUpstreamSpec, refuseUpstreamOptionsAlone, upstreamReadOptionSpecs } from './upstream-source.js';

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
  return parseManifest(await readJson(io, absolutePath), displayPath(io, absolutePath));
}

/** Checks a parsed manifest (`name` is the file as messages name it) and returns its primitives. */
export function parseManifest(value: unknown, name: string): PrimitiveMetadata[] {
  const parsed = manifestSchema.safeParse(value);
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

/** A manifest entry as `mcp-gate manifest` prints it: only the fields that say something. */
export function toManifestPrimitive(metadata: PrimitiveMetadata): ManifestPrimitive {
  const { kind, name, uri, uriTemplate, version, groups, tags, requires, endpoints } = metadata;
  const entry: ManifestPrimitive = { kind, name };
  if (uri !== undefined) entry.uri = uri;
  if (uriTemplate !== undefined) entry.uriTemplate = uriTemplate;
  if (version !== undefined) entry.version = version;
  if (groups.length > 0) entry.groups = [...groups];
  if (tags.length > 0) entry.tags = [...tags];
  const headers = Object.keys(requires.headers).length > 0 ? { ...requires.headers } : undefined;
  if (requires.capabilities.length > 0 || headers) {
    entry.requires = {};
    if (requires.capabilities.length > 0) entry.requires.capabilities = [...requires.capabilities];
    if (headers) entry.requires.headers = headers;
  }
  if (endpoints.length > 0) entry.endpoints = [...endpoints];
  return entry;
}

/** `--server MODULE [--export NAME]`, for every command that reads a server module. */
export const serverOptionSpecs = {
  server: { type: 'string', value: 'MODULE', description: 'a module exporting createServer() (or a default function) that returns an McpServer' },
  export: { type: 'string', value: 'NAME', description: 'the export of --server that creates the server (default: createServer, default, create…Server)' },
} as const satisfies OptionSpecs;

/** Every source of primitives: `--manifest`, `--server MODULE`, or a live upstream with an overlay. */
export const primitiveSourceOptionSpecs = { ...serverOptionSpecs, ...upstreamReadOptionSpecs } as const satisfies OptionSpecs;

/**
 * The primitives a command works on: from `--manifest FILE`, read from the server that
 * `--server MODULE` builds, or listed by a live upstream (`--upstream-cmd | --upstream-url`,
 * annotated by `--overlay`). Warnings (a metadata key matching nothing) go to stderr.
 */
export async function loadPrimitives(io: CliIo, args: ParsedArgs, command: string): Promise<PrimitiveMetadata[]> {
  const manifest = args.string('manifest');
  const server = args.string('server');
  const upstream = readUpstreamSpec(args, command);
  if (manifest !== undefined && server !== undefined) throw new UsageError(`${command}: pass either --manifest or --server, not both`);
  if (upstream !== undefined && (manifest !== undefined || server !== undefined)) {
    throw new UsageError(`${command}: pass one source of primitives: --manifest, --server or --upstream-cmd/--upstream-url`);
  }
  if (upstream === undefined) refuseUpstreamOptionsAlone(args, command);
  if (server !== undefined || upstream !== undefined) {
    const read = await readManifestSource(io, args, command);
    for (const warning of read.warnings) writeLines(io.stderr, warning);
    return [...read.primitives];
  }
  if (args.string('export') !== undefined) throw new UsageError(`${command}: --export names an export of --server MODULE; pass --server too`);
  if (manifest === undefined)
    throw new UsageError(`${command}: missing --manifest FILE, --server MODULE or --upstream-cmd "CMD ARGS" / --upstream-url URL; see "${command} --help"`);
  return loadManifest(io, manifest);
}

/** What `--server MODULE` or `--upstream-…` names, read as a manifest (server info, primitives, warnings). */
export async function readManifestSource(io: CliIo, args: ParsedArgs, command: string): Promise<ServerManifest> {
  const upstream = readUpstreamSpec(args, command);
  const server = args.string('server');
  if (upstream !== undefined && server !== undefined) throw new UsageError(`${command}: pass either --server or --upstream-cmd/--upstream-url, not both`);
  if (upstream !== undefined) return readUpstreamManifest(io, upstream, args, command);
  refuseUpstreamOptionsAlone(args, command);
  if (server === undefined) throw new UsageError(`${command}: missing --server MODULE or --upstream-cmd "CMD ARGS" / --upstream-url URL; see "${command} --help"`);
  return readServerManifest(await loadServerModule(io, server, args.string('export')));
}

import { pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { buildCatalog } from '../adapter/catalog.js';
import { metadataKey, validateMetadataOption } from '../adapter/metadata.js';
import { defaultVersionSeparator } from '../adapter/versioning.js';
import type { PrimitiveAnnotation, PrimitiveKind, PrimitiveMetadata } from '../core/primitive-metadata.js';
import { MetadataError, PolicyOptionError } from '../core/errors.js';
import { readInternals, readSources } from '../sdk/server-internals.js';
import { displayPath, InputError, readText, resolvePath, type CliIo } from './io.js';
import { closeMatches } from '../core/logic/suggest.js';
import { importPeer, MissingPeerError } from './peers.js';

/** A module that builds the McpServer to gate, as `--server MODULE [--export NAME]` names it. */
export interface ServerModule {
  /** The module as messages name it. */
  readonly name: string;
  /** The export that builds a server, e.g. `createServer`. */
  readonly factoryName: string;
  /** Builds a fresh McpServer (once per HTTP session when serving); throws InputError if it cannot. */
  readonly createServer: () => McpServer;
  /** The module's metadata export, for the gate's `metadata` option; validated on load. */
  readonly metadata: Readonly<Record<string, PrimitiveAnnotation>> | undefined;
  /** The export it came from, e.g. `metadata`, `demoMetadata`. */
  readonly metadataName: string | undefined;
}

/** What a server registers, as the gate sees it. */
export interface ServerManifest {
  readonly server?: { readonly name?: string; readonly version?: string } | undefined;
  readonly primitives: readonly PrimitiveMetadata[];
  /** Things worth a line on stderr that do not stop the command (a metadata key matching nothing). */
  readonly warnings: readonly string[];
}

const factoryPattern = /^create([A-Z]\w*)?Server$/;
const kinds: readonly PrimitiveKind[] = ['tool', 'prompt', 'resource', 'resourceTemplate'];

const defaultImport = (url: string) => import(url) as Promise<Record<string, unknown>>;

/**
 * Imports a server module and finds its factory: `--export NAME`, else `createServer`, else the
 * default export, else the one export named `create…Server` (the demo's `createDemoServer`). The
 * gate metadata is the export `metadata`, else `<x>Metadata` beside a `create<X>Server` factory.
 */
export async function loadServerModule(io: CliIo, path: string, exportName?: string): Promise<ServerModule> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  // Read first so a mistyped path gets the same "no such file" as every other input.
  await readText(io, absolutePath);
  let exports: Record<string, unknown>;
  try {
    // The module builds an McpServer of the v1 SDK (an optional peer of mcp-gate): when the SDK is
    // missing, say which package to install rather than relay Node's "Cannot find package".
    exports = await importPeer('@modelcontextprotocol/sdk', name, () => (io.importModule ?? defaultImport)(pathToFileURL(absolutePath).href));
  } catch (error) {
    if (error instanceof MissingPeerError) throw error;
    throw new InputError(`${name}: ${describeImportError(error, absolutePath)}`);
  }
  const factoryName = exportName ?? chooseFactory(exports, name);
  const factory = exports[factoryName];
  if (!Object.hasOwn(exports, factoryName)) {
    const [suggestion] = closeMatches(factoryName, exportNames(exports), 1);
    throw new InputError(`${name}: has no export "${factoryName}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; it exports ${listExports(exports)}`);
  }
  if (typeof factory !== 'function') throw new InputError(`${name}: export "${factoryName}" is not a function that creates an McpServer`);

  const metadataName = chooseMetadata(exports, factoryName);
  const metadata = metadataName === undefined ? undefined : exports[metadataName];
  try {
    validateMetadataOption(metadata);
  } catch (error) {
    if (error instanceof MetadataError) throw new InputError(metadataErrorLines(name, error, metadataName!).join('\n'));
    if (error instanceof PolicyOptionError) throw new InputError(`${name}: export "${metadataName}": ${error.message.replace(/^mcp-gate: option "metadata"/, 'metadata')}`);
    throw error;
  }

  const call = `${factoryName}()`;
  return {
    name,
    factoryName,
    metadata: metadata as Record<string, PrimitiveAnnotation> | undefined,
    metadataName,
    createServer() {
      let server: unknown;
      try {
        server = (factory as () => unknown)();
      } catch (error) {
        throw new InputError(`${name}: ${call} threw: ${firstLine(error)}`);
      }
      if (server !== null && typeof (server as { then?: unknown }).then === 'function') {
        throw new InputError(`${name}: ${call} returned a Promise; it must return the McpServer itself`);
      }
      try {
        readInternals(server as McpServer);
      } catch {
        throw new InputError(`${name}: ${call} did not return an McpServer of @modelcontextprotocol/sdk 1.32.x`);
      }
      return server as McpServer;
    },
  };
}

/**
 * Builds one server and reads its registrations the way the gate does (registry keys, `_meta`,
 * the metadata export, versioned tool names), registering nothing. A registration the server
 * disabled is left out: no client is ever served it. Prompt `_meta` is not read, as the gate
 * installed on a built server cannot read it (SDK 1.32 drops it); prompts take the metadata export.
 */
export function readServerManifest(module: ServerModule): ServerManifest {
  const server = module.createServer();
  const catalog = buildCatalog(readSources(readInternals(server), new WeakMap()), {
    version: 0,
    annotations: validateMetadataOption(module.metadata),
    versionSeparator: defaultVersionSeparator,
  });
  if (catalog.errors.length > 0) {
    throw new InputError(catalog.errors.flatMap((error) => metadataErrorLines(module.name, error)).join('\n'));
  }
  const registered = new Set<string>();
  const primitives: PrimitiveMetadata[] = [];
  for (const kind of kinds) {
    for (const entry of catalog.entries(kind)) {
      registered.add(metadataKey(kind, entry.key));
      if (entry.enabled) primitives.push(entry.metadata);
    }
  }
  const warnings = Object.keys(module.metadata ?? {})
    .filter((key) => !registered.has(key))
    .map((key) => `${module.name}: warning: ${module.metadataName}["${key}"] matches no registration`);
  return { server: readServerInfo(server), primitives, warnings };
}

function chooseFactory(exports: Record<string, unknown>, name: string): string {
  if (typeof exports['createServer'] === 'function') return 'createServer';
  if (typeof exports['default'] === 'function') return 'default';
  const candidates = exportNames(exports).filter((key) => factoryPattern.test(key) && typeof exports[key] === 'function');
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length > 1) throw new InputError(`${name}: exports several server factories (${candidates.join(', ')}); pick one with --export NAME`);
  throw new InputError(
    `${name}: exports no server factory; export "function createServer()" (or a default function) that returns an McpServer, or pass --export NAME (it exports ${listExports(exports)})`,
  );
}

function chooseMetadata(exports: Record<string, unknown>, factoryName: string): string | undefined {
  if (exports['metadata'] !== undefined) return 'metadata';
  const prefix = factoryPattern.exec(factoryName)?.[1];
  if (prefix === undefined) return undefined;
  const paired = `${prefix[0]!.toLowerCase()}${prefix.slice(1)}Metadata`;
  return exports[paired] === undefined ? undefined : paired;
}

/** Sorted (code unit order) as ESM namespaces are, whichever loader built the object. */
function exportNames(exports: Record<string, unknown>): string[] {
  return Object.keys(exports).sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
}

function listExports(exports: Record<string, unknown>): string {
  const names = exportNames(exports);
  return names.length === 0 ? 'nothing' : names.join(', ');
}

function describeImportError(error: unknown, absolutePath: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_UNKNOWN_FILE_EXTENSION' && /\.[cm]?tsx?$/.test(absolutePath)) {
    return 'cannot import TypeScript under plain node; pass the compiled .js, or run mcp-gate with tsx (npx tsx …/mcp-gate …)';
  }
  return `cannot load: ${firstLine(error)}`;
}

/** `server.js: tool "x": _meta["mcp-gate"].groups: message`, one line per issue. */
function metadataErrorLines(name: string, error: MetadataError, exportName?: string): string[] {
  const subject = /^invalid metadata of (.+?) \(\d+ issues?\):/.exec(error.message)?.[1];
  return error.issues.map((issue) => {
    const path = exportName === undefined ? issue.path : issue.path.replace(/^metadata/, exportName);
    return [name, exportName === undefined ? subject : undefined, path, issue.message].filter((part) => part !== undefined && part !== '').join(': ');
  });
}

function readServerInfo(server: McpServer): ServerManifest['server'] {
  const info = (server.server as unknown as { _serverInfo?: { name?: unknown; version?: unknown } })._serverInfo;
  if (info === null || typeof info !== 'object') return undefined;
  const result: { name?: string; version?: string } = {};
  if (typeof info.name === 'string') result.name = info.name;
  if (typeof info.version === 'string') result.version = info.version;
  return result;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0]!;
}

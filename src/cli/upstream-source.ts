import { MetadataError } from '../core/errors.js';
import { splitCommandLine, type UpstreamSpec } from '../proxy/upstream-command.js';
import { upstreamSessionHeaders } from '../proxy/upstream-headers.js';
import { compileOverlay, emptyOverlay, type Overlay } from '../wire/overlay.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { displayPath, formatIssues, InputError, readJson, resolvePath, UsageError, type CliIo } from './io.js';
import { importPeer } from './peers.js';
import type { ServerManifest } from './server-module.js';
import { readUpstreamHeaders } from './upstream-header-options.js';

/** `--upstream-cmd | --upstream-url [--overlay FILE]`: a live MCP server in any language as the source of primitives. */
/** The upstream alternatives among a command's primitive sources, for its usage line. */
export const upstreamSourceUsage = '--upstream-cmd "CMD ARGS" | --upstream-url URL [--upstream-header "NAME: VALUE"]…';

export const upstreamOptionSpecs = {
  'upstream-cmd': { type: 'string', value: '"CMD ARGS"', description: 'spawn this command (no shell; quotes group words) and speak MCP over its stdio' },
  'upstream-url': { type: 'string', value: 'URL', description: "the upstream's Streamable HTTP endpoint" },
  overlay: { type: 'string', value: 'FILE', description: 'annotations by glob for primitives without _meta["mcp-gate"] (docs/overlay.schema.json)' },
} as const satisfies OptionSpecs;

/** The upstream options of the commands that read an upstream once (manifest, explain, diff, check, test, playground). */
export const upstreamReadOptionSpecs = {
  ...upstreamOptionSpecs,
  'upstream-header': {
    type: 'string',
    multiple: true,
    value: '"NAME: VALUE"',
    description: 'set this header on every request to the --upstream-url (its credentials); repeatable',
  },
} as const satisfies OptionSpecs;

/** How long reading an upstream may take, from spawning it to its last list page. */
export const upstreamReadTimeoutMs = 30_000;

/** The upstream the arguments name, or undefined when they name none; both, or a bad one, is a usage error. */
export function readUpstreamSpec(args: ParsedArgs, command: string): UpstreamSpec | undefined {
  const commandLine = args.string('upstream-cmd');
  const urlText = args.string('upstream-url');
  if (commandLine !== undefined && urlText !== undefined) throw new UsageError(`${command}: pass one upstream: --upstream-cmd "CMD ARGS" or --upstream-url URL`);
  if (commandLine !== undefined) {
    const split = splitCommandLine(commandLine);
    if (typeof split === 'string') throw new UsageError(`${command}: --upstream-cmd: ${split}`);
    return { kind: 'command', ...split };
  }
  if (urlText === undefined) return undefined;
  const url = URL.canParse(urlText) ? new URL(urlText) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(`${command}: --upstream-url must be an http: or https: URL, got "${urlText}"`);
  return { kind: 'url', url };
}

/** `--overlay` and `--upstream-header` qualify an upstream: given without one, they are a usage error. */
export function refuseUpstreamOptionsAlone(args: ParsedArgs, command: string): void {
  if (args.string('overlay') !== undefined) throw new UsageError(`${command}: --overlay annotates an upstream's primitives; pass --upstream-cmd or --upstream-url too`);
  if (args.strings('upstream-header').length > 0) throw new UsageError(`${command}: --upstream-header sets HTTP headers of an --upstream-url; pass --upstream-url too`);
}

/** A readable name for an upstream in messages: its URL or its command line. */
export function describeUpstream(spec: UpstreamSpec): string {
  return spec.kind === 'url' ? spec.url.href : [spec.command, ...spec.args].join(' ');
}

/** Reads and compiles the overlay; every problem is one `file: path: message` line. */
export async function loadOverlay(io: CliIo, path: string | undefined): Promise<Overlay> {
  if (path === undefined) return emptyOverlay;
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const document = await readJson(io, absolutePath);
  try {
    return compileOverlay(document, name);
  } catch (error) {
    if (error instanceof MetadataError) throw new InputError(formatIssues(name, error.issues));
    throw error;
  }
}

/**
 * Connects to the upstream once, reads every page of its four lists and closes it (a spawned
 * upstream is stopped): its primitives annotated as the proxy annotates them — their own
 * `_meta["mcp-gate"]`, else the `--overlay`; an HTTP upstream is sent the `--upstream-header`s. Needs @modelcontextprotocol/sdk, loaded only here.
 */
export async function readUpstreamManifest(io: CliIo, spec: UpstreamSpec, args: ParsedArgs, command: string): Promise<ServerManifest> {
  const headers = readUpstreamHeaders(args, command, io.env);
  if (headers.length > 0 && spec.kind !== 'url')
    throw new UsageError(`${command}: --upstream-header sets HTTP headers of an --upstream-url; a spawned upstream takes its credentials from the environment`);
  const overlayPath = args.string('overlay');
  const reader = await importPeer('@modelcontextprotocol/sdk', command, () => import('./upstream-reader.js'));
  const overlay = await loadOverlay(io, overlayPath);
  const upstreamName = describeUpstream(spec);
  let read;
  try {
    read = await reader.readUpstream(spec, overlay, { cwd: io.cwd, timeoutMs: upstreamReadTimeoutMs, headers: upstreamSessionHeaders(headers, [], {}) });
  } catch (error) {
    throw new InputError(`${command}: cannot read the upstream ${upstreamName}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const overlayName = overlayPath === undefined ? 'overlay' : displayPath(io, resolvePath(io, overlayPath));
  const warnings = [
    ...read.invalid.map((problem) => `${upstreamName}: warning: ${problem} (hidden by the gate)`),
    ...read.unmatchedOverlayKeys.map((key) => `${overlayName}: metadata.${key}: warning: matches no primitive of the upstream`),
  ];
  return { server: read.server, primitives: read.primitives, warnings };
}

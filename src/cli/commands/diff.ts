import type { PrimitiveMetadata } from '../../core/primitive-metadata.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import type { RequestContextInput } from '../../core/context.js';
import {
  combineContext,
  contextOptionSpecs,
  contextOptionsUsage,
  defaultEndpoint,
  describeAuth,
  profileChoice,
  readContextOptions,
  type ClientChoice,
  type ContextOptions,
} from '../context-options.js';
import { decideAll, servedKey } from '../decisions.js';
import { diffExhaustively } from './diff-exhaustive.js';
import { exitCodes, loadAll, UsageError } from '../io.js';
import { describeMetadata, loadPrimitives, primitiveSourceOptionSpecs } from '../manifest.js';
import { upstreamSourceUsage } from '../upstream-source.js';
import { loadPolicy } from '../policy-file.js';
import { clientProfiles } from '../../profiles/client-profiles.js';

const command = 'mcp-gate diff';

/** One request shape every client is checked with: an endpoint, with or without the given headers. */
interface Variant {
  readonly label: string;
  readonly endpoint: string;
  readonly headers: Record<string, string>;
}

interface Change {
  readonly metadata: PrimitiveMetadata;
  readonly direction: '+' | '-';
  /** Variant label → ids of the clients for which the primitive appears (or disappears). */
  readonly clientsByVariant: Map<string, string[]>;
}

export const diffCommand: Command = {
  name: 'diff',
  summary: 'show which primitives appear or disappear for real clients when a policy changes',
  usage: [
    `mcp-gate diff <old.json> <new.json> (--manifest FILE | --server MODULE | ${upstreamSourceUsage}) [--overlay FILE] [--client NAME]… ${contextOptionsUsage} [--endpoint PATH]… [--json] [--exit-code]`,
    `       mcp-gate diff --exhaustive <old.json> <new.json> (--manifest FILE | --server MODULE | ${upstreamSourceUsage}) [--overlay FILE] [--json] [--exit-code]`,
  ].join('\n'),
  description: [
    'Evaluates both policies for every client profile (or each --client) on every --endpoint',
    `(default ${defaultEndpoint}), without headers and, when --header is given, with all given headers,`,
    'and lists each primitive that a client would newly see (+) or no longer see (-). --context and the',
    'client and auth options apply to every request; each profile overrides the client fields it sets.',
    'With --exhaustive, every request context is decided instead (docs/check.md): each class of callers',
    'whose view changes is listed with a request of the class and the primitives it gains and loses.',
    'Exit code: 0, or with --exit-code 1 when anything changes (with --exhaustive, also when the analysis',
    'cannot prove that nothing does).',
  ].join('\n'),
  options: {
    manifest: { type: 'string', value: 'FILE', description: 'the primitives, as JSON {"primitives": […]} (or --server)' },
    ...primitiveSourceOptionSpecs,
    client: { type: 'string', multiple: true, value: 'NAME', description: 'check only these client profiles (repeatable; default: all)' },
    ...contextOptionSpecs,
    endpoint: { type: 'string', multiple: true, value: 'PATH', description: `a URL path to check (repeatable; default ${defaultEndpoint})` },
    exhaustive: { type: 'boolean', description: 'decide every request context, not the client profiles × request variants' },
    json: { type: 'boolean', description: 'print the changes as JSON' },
    'exit-code': { type: 'boolean', description: 'exit with 1 when any primitive appears or disappears' },
  },
  async execute(args, io) {
    const [oldPath, newPath, extra] = args.positionals;
    if (oldPath === undefined || newPath === undefined) throw new UsageError(`${command}: needs two policy files, old and new; see "${command} --help"`);
    if (extra !== undefined) throw new UsageError(`${command}: unexpected argument "${extra}"; see "${command} --help"`);
    if (args.flag('exhaustive')) return diffExhaustively(args, io, oldPath, newPath);
    const names = args.strings('client');
    const clients: ClientChoice[] = names.length > 0 ? names.map((name) => profileChoice(name, command)) : clientProfiles.map((profile) => profileChoice(profile.id, command));
    const options = readContextOptions(args, command);
    const contextEndpoint = options.context.request?.endpoint;
    const endpoints = args.strings('endpoint');
    const variants = buildVariants(endpoints.length > 0 ? endpoints : [contextEndpoint ?? defaultEndpoint], options);
    const [primitives, before, after] = await loadAll(loadPrimitives(io, args, command), loadPolicy(io, oldPath), loadPolicy(io, newPath));

    const changes = new Map<string, Change>();
    for (const variant of variants) {
      for (const client of clients) {
        const request = { client: combineContext(options, client.input), headers: variant.headers, endpoint: variant.endpoint };
        const seenBefore = new Set(
          decideAll(before.policy, primitives, request)
            .filter((entry) => entry.served)
            .map((entry) => servedKey(entry.metadata)),
        );
        const seenAfter = new Set(
          decideAll(after.policy, primitives, request)
            .filter((entry) => entry.served)
            .map((entry) => servedKey(entry.metadata)),
        );
        for (const metadata of primitives) {
          const key = servedKey(metadata);
          const direction = seenAfter.has(key) && !seenBefore.has(key) ? '+' : seenBefore.has(key) && !seenAfter.has(key) ? '-' : undefined;
          if (direction === undefined) continue;
          const changeKey = `${direction}${key}`;
          let change = changes.get(changeKey);
          if (!change) changes.set(changeKey, (change = { metadata, direction, clientsByVariant: new Map() }));
          const ids = change.clientsByVariant.get(variant.label) ?? [];
          ids.push(client.profile?.id ?? client.label);
          change.clientsByVariant.set(variant.label, ids);
        }
      }
    }
    // Manifest order, appearing before disappearing: the review reads top to bottom like the server.
    const ordered = [...changes.values()].sort(
      (left, right) => primitives.indexOf(left.metadata) - primitives.indexOf(right.metadata) || left.direction.localeCompare(right.direction),
    );
    const shared = sharedContext(options);
    if (args.flag('json')) writeLines(io.stdout, JSON.stringify(toJson(ordered, variants, clients.length, shared), null, 2));
    else writeLines(io.stdout, formatChanges(ordered, variants, clients, shared));
    return ordered.length > 0 && args.flag('exit-code') ? exitCodes.failed : exitCodes.ok;
  },
};

/** Each endpoint without and (when given) with the `--header`s; `--context` headers are in every variant. */
function buildVariants(endpoints: readonly string[], { contextHeaders, headers }: ContextOptions): Variant[] {
  const headerSets = Object.keys(headers).length > 0 ? [contextHeaders, { ...contextHeaders, ...headers }] : [contextHeaders];
  return endpoints.flatMap((endpoint) =>
    headerSets.map((set: Record<string, string>) => {
      // NAME=VALUE, as typed: a colon would blur with the "variant: clients" separator.
      const headerText = Object.entries(set)
        .map(([name, value]) => `${name}=${value}`)
        .join(', ');
      return { endpoint, headers: set, label: `${endpoint === '' ? '"" (stdio)' : endpoint}${headerText ? ` with ${headerText}` : ''}` };
    }),
  );
}

/**
 * What every checked request shares beyond its profile, endpoint and headers: the client and auth
 * fields from `--context` and the options, and a method `--context` fixes. Undefined when none.
 */
function sharedContext(options: ContextOptions): RequestContextInput | undefined {
  const { request, client, auth } = combineContext(options, {});
  const shared: RequestContextInput = {};
  if (request?.method !== undefined) shared.request = { method: request.method };
  // Every profile sets a name, so only --client-name survives as a shared one.
  const name = options.overrides.client.name;
  if (name !== undefined || client?.version !== undefined) shared.client = { name, version: client?.version };
  if (describeAuth(auth).length > 0) shared.auth = auth;
  return Object.keys(shared).length > 0 ? shared : undefined;
}

/** `client name: x; client version: 1.2.0; scopes: beta`, for the summary line. */
function describeShared(shared: RequestContextInput): string {
  const parts: string[] = [];
  if (shared.request?.method !== undefined) parts.push(`method ${shared.request.method}`);
  if (shared.client?.name !== undefined) parts.push(`client name: ${shared.client.name}`);
  if (shared.client?.version !== undefined) parts.push(`client version: ${shared.client.version}`);
  return [...parts, ...describeAuth(shared.auth)].join('; ');
}

function formatChanges(changes: readonly Change[], variants: readonly Variant[], clients: readonly ClientChoice[], shared: RequestContextInput | undefined): string {
  const clientCount = clients.length;
  const variantList =
    variants.length === 1 ? `1 request variant, ${variants[0]!.label}` : `${variants.length} request variants: ${variants.map((variant) => variant.label).join(', ')}`;
  const checked = `${clientCount === 1 ? '1 client profile' : `${clientCount} client profiles`} × ${variantList}${shared ? `; every request with ${describeShared(shared)}` : ''}`;
  if (changes.length === 0) return `No primitive appears or disappears (checked ${checked}).`;
  const lines: string[] = [];
  for (const change of changes) {
    lines.push(`${change.direction} ${describeMetadata(change.metadata)}`);
    // Variants with the same clients share a line, so a change that hits everyone reads as one line.
    const variantsByClients = new Map<string, string[]>();
    for (const [variant, ids] of change.clientsByVariant) {
      const described = describeClients(ids, clients);
      variantsByClients.set(described, [...(variantsByClients.get(described) ?? []), variant]);
    }
    for (const [described, labels] of variantsByClients) {
      const where = variants.length > 1 && labels.length === variants.length ? 'every request variant' : labels.join(', ');
      lines.push(`    ${where}: ${described}`);
    }
  }
  const count = new Set(changes.map((change) => change.metadata)).size;
  lines.push('', `${count === 1 ? '1 primitive changes' : `${count} primitives change`} visibility (checked ${checked}).`);
  return lines.join('\n');
}

/** `all 42 clients`, `cursor-vscode, Zed (2 of 42 clients)`, or for most: `all 42 clients except claude-code`. */
function describeClients(ids: readonly string[], clients: readonly ClientChoice[]): string {
  const total = clients.length;
  if (ids.length === total) return total === 1 ? ids[0]! : `all ${total} clients`;
  if (ids.length > total / 2 && total > 2) {
    const included = new Set(ids);
    const excluded = clients.map((client) => client.profile?.id ?? client.label).filter((id) => !included.has(id));
    return `all ${total} clients except ${excluded.join(', ')}`;
  }
  return `${ids.join(', ')} (${ids.length} of ${total} clients)`;
}

function toJson(changes: readonly Change[], variants: readonly Variant[], clientCount: number, shared: RequestContextInput | undefined): unknown {
  return {
    checked: { clients: clientCount, variants: variants.map(({ endpoint, headers }) => ({ endpoint, headers })), context: shared },
    changes: changes.map(({ metadata, direction, clientsByVariant }) => ({
      change: direction === '+' ? 'appears' : 'disappears',
      kind: metadata.kind,
      name: metadata.name,
      version: metadata.version,
      uri: metadata.uri,
      variants: variants
        .filter((variant) => clientsByVariant.has(variant.label))
        .map((variant) => ({ endpoint: variant.endpoint, headers: variant.headers, clients: clientsByVariant.get(variant.label) })),
    })),
  };
}

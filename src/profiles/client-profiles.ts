import { mcpClients, type McpClientRecord } from 'mcp-client-capabilities';
import type { RequestContextInput } from '../core/context.js';
import { PolicyError } from '../core/errors.js';
import { closeMatches, normalize } from '../core/logic/suggest.js';

/** A client profile name that matches no profile, or several; the message lists close matches. */
export class ClientProfileError extends PolicyError {
  override name = 'ClientProfileError';
}

/** A real MCP client as the `mcp-client-capabilities` database records it, or as we captured it. */
export interface ClientProfile {
  /** The `clientInfo.name` the client sends in `initialize` (the database key), e.g. `cursor-vscode`. */
  readonly id: string;
  /** Product name, e.g. `Cursor`. */
  readonly title: string;
  readonly protocolVersion: string;
  /** What the client declares as its capabilities in `initialize`. */
  readonly capabilities: Readonly<Record<string, unknown>>;
}

// The database mixes two things: client capabilities (sent in `initialize`) and the server
// features the client can use (`tools`, `prompts`, `resources`, …). Only the first kind
// reaches a server, so only it goes into the context.
const clientCapabilityKeys = ['roots', 'sampling', 'elicitation', 'tasks', 'experimental', 'extensions'] as const;

function toProfile(id: string, record: McpClientRecord): ClientProfile {
  const capabilities: Record<string, unknown> = {};
  for (const key of clientCapabilityKeys) {
    const value = (record as unknown as Record<string, unknown>)[key];
    if (value !== undefined) capabilities[key] = structuredClone(value);
  }
  return Object.freeze({ id, title: record.title, protocolVersion: record.protocolVersion, capabilities: Object.freeze(capabilities) });
}

/**
 * Clients the database does not record, as they were captured on the wire (the `initialize`
 * request each sent to the demo server). Only what reaches a server: name, protocol version,
 * capabilities.
 */
const capturedProfiles: readonly ClientProfile[] = [
  // `npx @modelcontextprotocol/inspector@2.12.0 --cli URL --transport http --method tools/list`
  // (`@modelcontextprotocol/client` 2.3.1 underneath): roots always, never sampling or elicitation.
  // Its browser UI is another client (`mcp-inspector`, with sampling and elicitation); the 0.15
  // and 1.0 CLIs declare `{}` (0.15 as `inspector-cli` 0.5.1, 1.0.3 as `inspector`).
  {
    id: 'inspector-cli',
    title: 'MCP Inspector CLI',
    protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true }, extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': {} } },
  },
];

function frozenProfile(profile: ClientProfile): ClientProfile {
  return Object.freeze({ ...profile, capabilities: Object.freeze(structuredClone(profile.capabilities) as Record<string, unknown>) });
}

/** Every profile, ordered by id (case-insensitive) so listings and diffs are stable. */
export const clientProfiles: readonly ClientProfile[] = Object.freeze(
  [...Object.entries(mcpClients).map(([id, record]) => toProfile(id, record)), ...capturedProfiles.map(frozenProfile)].sort((left, right) =>
    left.id.toLowerCase() < right.id.toLowerCase() ? -1 : left.id.toLowerCase() > right.id.toLowerCase() ? 1 : 0,
  ),
);

// Names people type that match neither an id nor a title.
const profileAliases: ReadonlyMap<string, string> = new Map([['vscode', 'Visual Studio Code']]);

/**
 * Finds a profile by id or product name, forgiving case and separators: `cursor`, `Cursor` and
 * `cursor-vscode` all name Cursor. An exact id wins over a product name shared by several ids
 * (two Visual Studio Code builds report different ids).
 */
export function findClientProfile(name: string): ClientProfile {
  const aliased = profileAliases.get(normalize(name));
  if (aliased !== undefined) return findClientProfile(aliased);
  const exact = clientProfiles.find((profile) => profile.id === name);
  if (exact) return exact;
  const byId = clientProfiles.filter((profile) => profile.id.toLowerCase() === name.toLowerCase());
  if (byId.length === 1) return byId[0]!;
  const wanted = normalize(name);
  const loose = clientProfiles.filter((profile) => normalize(profile.id) === wanted || normalize(profile.title) === wanted);
  if (loose.length === 1) return loose[0]!;
  if (loose.length > 1) {
    throw new ClientProfileError(`client profile "${name}" is ambiguous: it names ${loose.map(describeProfile).join(', ')}; pass one of these ids`);
  }
  const candidates = new Map<string, ClientProfile>();
  for (const profile of clientProfiles) {
    candidates.set(profile.id, profile);
    candidates.set(profile.title, profile);
  }
  const matches = [...new Set(closeMatches(name, candidates.keys(), 5).map((key) => candidates.get(key)!))];
  const hint = matches.length > 0 ? `; close matches: ${matches.map(describeProfile).join(', ')}` : '';
  return unknownProfile(name, hint);
}

function unknownProfile(name: string, hint: string): never {
  throw new ClientProfileError(`unknown client profile "${name}"${hint}; run "mcp-gate profiles" to list all ${clientProfiles.length}`);
}

/** `cursor-vscode (Cursor)`; the id alone when it is the title. */
export function describeProfile(profile: ClientProfile): string {
  return profile.id === profile.title ? profile.id : `${profile.id} (${profile.title})`;
}

/** The context parts a real client of this profile sends: its name, capabilities and protocol version. */
export function profileContext(profile: ClientProfile): RequestContextInput {
  return {
    request: { protocolVersion: profile.protocolVersion },
    client: { name: profile.id, capabilities: structuredClone(profile.capabilities) as Record<string, unknown> },
  };
}

import { createRequestContext, type RequestContext, type RequestContextInput } from '../context.js';
import { listMethodOf, type PrimitiveMetadata } from '../primitive-metadata.js';
import type { Atom, ConditionAtoms, PathKind } from './condition-atoms.js';
import type { Space } from './analysis-types.js';
import { valueClasses, type ValueClasses } from './value-classes.js';

// A space of contexts: the paths some questions read, each with one representative per class,
// and the requests built from a choice of classes. Shared by `check` (one primitive at a time)
// and `diff --exhaustive` (many primitives and two policies at once).

export type ClassesOf = (path: string, kind: PathKind, atoms: readonly Atom[]) => ValueClasses;

/** valueClasses, computed once per path and set of atoms: many primitives test a path alike. */
export function createClassCache(): ClassesOf {
  const cache = new Map<string, ValueClasses>();
  return function classesOf(path, kind, atoms) {
    const key = `${path}\u0000${kind}\u0000${JSON.stringify(atoms)}`;
    let classes = cache.get(key);
    if (classes === undefined) cache.set(key, (classes = valueClasses(path, kind, atoms)));
    return classes;
  };
}

/** The space of what `all` reads; `label` starts each reason (e.g. `tool search`). */
export function buildSpace(all: ConditionAtoms, label: string, classesOf: ClassesOf): Space {
  const inexact = all.unmodelled.map((reason) => `${label}: ${reason}`);
  const entries = new Map(all.paths);
  for (const [path, kind] of all.opaque) if (!entries.has(path)) entries.set(path, { kind, atoms: [] });
  const paths = [...entries.keys()].sort();
  const claimPaths = paths.filter((path) => path.startsWith('auth.claims.'));
  for (const path of claimPaths) {
    const inside = claimPaths.find((other) => other !== path && other.startsWith(`${path}.`));
    if (inside !== undefined) inexact.push(`${label}: reads both ${path} and ${inside}`);
  }
  const values = paths.map((path) => {
    const { kind, atoms } = entries.get(path)!;
    const classes = classesOf(path, kind, atoms);
    if (classes.inexact !== undefined) inexact.push(`${label}: ${classes.inexact}`);
    // The verdict is unknown here anyway; more values may still find a real counterexample.
    return all.opaque.has(path) ? [...new Set([...classes.values, ...opaqueValues(kind)])] : classes.values;
  });
  const combinations = values.reduce((product, list) => product * list.length, 1);
  return { paths, values, inexact, combinations };
}

/** Values tried for a path whose value the analysis cannot partition (a rollout's bucketing key, say). */
function opaqueValues(kind: PathKind): unknown[] {
  if (kind === 'text' || kind === 'optional-text' || kind === 'claim') return Array.from({ length: 24 }, (_, index) => `client-${index + 1}`);
  return [];
}

/** Path → the representative a choice picks (paths absent from the space are not set). */
export function assignmentOf(space: Space, choice: readonly number[]): Map<string, unknown> {
  return new Map(space.paths.map((path, index) => [path, space.values[index]![choice[index]!]]));
}

/**
 * The smallest RequestContextInput (what `mcp-gate explain --context` takes) holding these
 * values: an absent value is left out, the endpoint is `/mcp` unless assigned, and the method
 * only when assigned.
 */
export function contextInputOf(assignment: ReadonlyMap<string, unknown>): RequestContextInput {
  const value = (path: string) => assignment.get(path);
  const headers: Record<string, string> = {};
  const claims: Record<string, unknown> = {};
  for (const [path, chosen] of assignment) {
    if (chosen === undefined) continue;
    if (path.startsWith('request.headers.')) headers[path.slice('request.headers.'.length)] = chosen as string;
    else if (path.startsWith('auth.claims.')) setPath(claims, path.slice('auth.claims.'.length).split('.'), chosen);
  }
  const request: Record<string, unknown> = { endpoint: assignment.has('request.endpoint') ? value('request.endpoint') : '/mcp' };
  if (assignment.has('request.method')) request.method = value('request.method');
  if (Object.keys(headers).length > 0) request.headers = sortedKeys(headers);
  for (const field of ['sessionId', 'protocolVersion']) if (value(`request.${field}`) !== undefined) request[field] = value(`request.${field}`);
  const client: Record<string, unknown> = {};
  for (const field of ['name', 'version', 'capabilities']) if (value(`client.${field}`) !== undefined) client[field] = value(`client.${field}`);
  const auth: Record<string, unknown> = {};
  for (const field of ['clientId', 'subject', 'issuer']) if (value(`auth.${field}`) !== undefined) auth[field] = value(`auth.${field}`);
  const scopes = value('auth.scopes') as string[] | undefined;
  if (scopes !== undefined && scopes.length > 0) auth.scopes = scopes;
  if (Object.keys(claims).length > 0) auth.claims = claims;
  const input: RequestContextInput = { request: request as RequestContextInput['request'] };
  if (Object.keys(client).length > 0) input.client = client;
  if (Object.keys(auth).length > 0) input.auth = auth;
  return input;
}

/** The context a primitive is decided in: the method its list has unless a rule reads the method (as `mcp-gate explain` does). */
export function evaluationContext(assignment: ReadonlyMap<string, unknown>, primitive: PrimitiveMetadata): RequestContext {
  const input = contextInputOf(assignment);
  if (!assignment.has('request.method')) (input.request as { method?: string }).method = listMethodOf(primitive.kind);
  return createRequestContext(input);
}

function sortedKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function setPath(target: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = target;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    node = (next !== null && typeof next === 'object' && !Array.isArray(next) ? next : (node[segment] = {})) as Record<string, unknown>;
  }
  node[segments.at(-1)!] = value;
}

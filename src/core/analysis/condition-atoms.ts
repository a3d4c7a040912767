import type { PrimitiveMetadata } from '../primitive-metadata.js';

// What a condition asks of the context, for one primitive. The analysis is exact when the
// context enters a condition only through *atoms*: one context path tested against literals
// (`==` a string, `in` a list, `starts_with`, `glob`, `sem_ver`, `has`, truthiness, …). Any
// expression built from atoms and literals is then a function of the atoms' values, so two
// contexts that agree on every atom get the same decision — whatever `and`/`or`/`if` do with
// them. A context value that reaches anything else (arithmetic, `cat`, `fractional`, a
// comparison with another context value, a computed path) is *unmodelled*, with the reason.
// Primitive fields are literals here: the analysis runs per primitive.

export type OrderOperator = '<' | '<=' | '>' | '>=';

/** The kind of value a context path holds, which decides how its values are partitioned. */
export type PathKind = 'text' | 'optional-text' | 'scopes' | 'capabilities' | 'claim';

/** One test of one context path against literals. */
export type Atom =
  | { readonly op: 'eq'; readonly value: unknown; readonly loose: boolean }
  | { readonly op: 'prefix' | 'suffix' | 'contains' | 'glob'; readonly value: string }
  | { readonly op: 'truthy' | 'missing' }
  | { readonly op: 'semver'; readonly operator: string; readonly version: string }
  /**
   * `<`, `<=`, `>` or `>=` against this number: the value as a number (JavaScript's coercion:
   * `"5"`, `[5]` and `5` alike; absent reads as null, so 0) is cut at it, whichever operator.
   */
  | { readonly op: 'order'; readonly value: number }
  /** `auth.scopes` holds this scope. */
  | { readonly op: 'member'; readonly value: string }
  /** `client.capabilities` declares this path (`has`, requirements). */
  | { readonly op: 'capability'; readonly value: string };

export interface ConditionAtoms {
  /** Context path → its kind and the atoms that test it. */
  readonly paths: Map<string, { kind: PathKind; atoms: Atom[] }>;
  /** Why the analysis cannot be exact for this condition (empty when it can). */
  readonly unmodelled: string[];
  /** Output roots (`visible`, `decision`) the condition reads: only invariants have them. */
  readonly outputs: Set<string>;
  /** Context paths whose values reach something unmodelled: extra values are tried there, to find real counterexamples. */
  readonly opaque: Map<string, PathKind>;
}

export function emptyAtoms(): ConditionAtoms {
  return { paths: new Map(), unmodelled: [], outputs: new Set(), opaque: new Map() };
}

export function addAtom(into: ConditionAtoms, path: string, kind: PathKind, atom: Atom): void {
  let entry = into.paths.get(path);
  if (entry === undefined) into.paths.set(path, (entry = { kind, atoms: [] }));
  if (!entry.atoms.some((known) => JSON.stringify(known) === JSON.stringify(atom))) entry.atoms.push(atom);
}

export function mergeAtoms(into: ConditionAtoms, from: ConditionAtoms): void {
  for (const [path, { kind, atoms }] of from.paths) for (const atom of atoms) addAtom(into, path, kind, atom);
  for (const reason of from.unmodelled) if (!into.unmodelled.includes(reason)) into.unmodelled.push(reason);
  for (const output of from.outputs) into.outputs.add(output);
  for (const [path, kind] of from.opaque) into.opaque.set(path, kind);
}

const textFields = new Set(['request.method', 'request.endpoint']);
const optionalTextFields = new Set(['request.sessionId', 'request.protocolVersion', 'client.name', 'client.version', 'auth.clientId', 'auth.subject', 'auth.issuer']);

/** The kind of a context path the analysis partitions, or undefined for one it does not. */
export function pathKindOf(path: string): PathKind | undefined {
  if (textFields.has(path)) return 'text';
  if (optionalTextFields.has(path)) return 'optional-text';
  const segments = path.split('.');
  if (segments.length === 3 && segments[0] === 'request' && segments[1] === 'headers' && segments[2] !== '') return 'optional-text';
  if (path === 'auth.scopes') return 'scopes';
  if (path === 'client.capabilities') return 'capabilities';
  if (segments.length >= 3 && segments[0] === 'auth' && segments[1] === 'claims' && segments.every((segment) => segment !== '')) return 'claim';
  return undefined;
}

/** The roots of context paths (the rest of a policy's data is the primitive, flags and literals). */
export const contextRoots = new Set(['request', 'client', 'auth']);

/** What a primitive's requirements read: each capability path, each header's value, the endpoint against each glob. */
export function requirementAtomsOf(primitive: PrimitiveMetadata): ConditionAtoms {
  const atoms = emptyAtoms();
  for (const path of primitive.requires.capabilities) addAtom(atoms, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
  for (const [name, value] of Object.entries(primitive.requires.headers))
    addAtom(atoms, `request.headers.${name.toLowerCase()}`, 'optional-text', { op: 'eq', value, loose: false });
  for (const pattern of primitive.endpoints) addAtom(atoms, 'request.endpoint', 'text', { op: 'glob', value: pattern });
  return atoms;
}

import { compileLogic } from '../logic/compile.js';
import { builtinOperators } from '../logic/operators.js';
import { isWholeDataPath, readPath, splitPath } from '../logic/path.js';
import { parseSemVer, versionOperators } from '../logic/semver.js';
import type { PrimitiveMetadata } from '../context.js';

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

/** What walking a node found: a literal, a raw context read still looking for its test, or a value built from atoms. */
type Walked =
  { readonly kind: 'const'; readonly node: unknown } | { readonly kind: 'read'; readonly path: string; readonly pathKind: PathKind } | { readonly kind: 'dynamic' };

const dynamic: Walked = { kind: 'dynamic' };

const contextRoots = new Set(['request', 'client', 'auth']);
const primitiveRoots = new Set(['primitive', 'tool']);

export interface AtomOptions {
  /** Roots that stand for the decision being checked (invariants: `visible`, `decision`). */
  readonly outputRoots?: ReadonlySet<string>;
}

/** The atoms of one condition for one primitive (`where` names the condition in reasons, e.g. `rules[2].when`). */
export function collectAtoms(condition: unknown, primitive: PrimitiveMetadata, where: string, options: AtomOptions = {}): ConditionAtoms {
  const found = emptyAtoms();
  const outputRoots = options.outputRoots ?? new Set<string>();
  const constData = { primitive, tool: primitive };

  function unmodelled(reason: string): Walked {
    const text = `${where}: ${reason}`;
    if (!found.unmodelled.includes(text)) found.unmodelled.push(text);
    return dynamic;
  }

  /** The value of a literal subtree (primitive fields included); undefined when it cannot be evaluated. */
  function constantOf(node: unknown): { value: unknown } | undefined {
    if (node === null || typeof node !== 'object') return { value: node };
    try {
      return { value: compileLogic(node)(constData) };
    } catch {
      return undefined;
    }
  }

  /** A raw read meets truthiness (`!`, `and`, `or`, `if`, the root): an atom. */
  function truthOf(walked: Walked): Walked {
    if (walked.kind !== 'read') return walked;
    if (walked.pathKind === 'capabilities') addAtom(found, walked.path, 'capabilities', { op: 'truthy' });
    else addAtom(found, walked.path, walked.pathKind, { op: 'truthy' });
    return dynamic;
  }

  /** A raw read in a position where its value (not just its truthiness) flows on. */
  function valueOf(walked: Walked, operator: string): Walked {
    if (walked.kind !== 'read') return walked;
    found.opaque.set(walked.path, walked.pathKind);
    return unmodelled(`the value of ${walked.path} flows into "${operator}", which the analysis does not partition`);
  }

  function readVar(args: readonly unknown[]): Walked {
    const [pathArg, fallback] = args;
    if (fallback !== undefined) {
      const walkedFallback = walk(fallback, false);
      if (walkedFallback.kind !== 'const') return unmodelled('a var default that reads the context');
    }
    if (typeof pathArg !== 'string' && typeof pathArg !== 'number') {
      if (isWholeDataPath(pathArg)) return unmodelled('a var of the whole data');
      return unmodelled('a computed var path');
    }
    if (isWholeDataPath(pathArg)) return unmodelled('a var of the whole data');
    const segments = splitPath(pathArg);
    const root = segments[0]!;
    if (primitiveRoots.has(root) || outputRoots.has(root)) {
      if (outputRoots.has(root)) {
        found.outputs.add(root);
        return dynamic;
      }
      return { kind: 'const', node: { var: args.length > 1 ? args : pathArg } };
    }
    // A feature flag is resolved per request from outside the context the analysis enumerates.
    if (root === 'flags') return unmodelled(`reads feature flag ${segments.join('.')}, which the analysis does not partition`);
    if (!contextRoots.has(root)) return { kind: 'const', node: null };
    const path = segments.join('.');
    const kind = pathKindOf(path);
    if (kind === undefined) {
      if (path.startsWith('client.capabilities.'))
        return unmodelled(`reads the value of ${path} (test presence with {"has": "${path.slice('client.capabilities.'.length)}"})`);
      return unmodelled(`reads ${path}, which the analysis does not partition`);
    }
    // A default replaces only an absent value, which is a class of its own: the read stays exact.
    return { kind: 'read', path, pathKind: kind };
  }

  /** `a <op> b` where one side is a raw read and the other a literal. */
  function comparison(operator: string, left: Walked, right: Walked, leftNode: unknown, rightNode: unknown): Walked {
    if (left.kind === 'const' && right.kind === 'const') return { kind: 'const', node: { [operator]: [leftNode, rightNode] } };
    const read = left.kind === 'read' ? left : right.kind === 'read' ? right : undefined;
    const other = read === left ? right : left;
    if (read === undefined) return dynamic;
    if (other.kind !== 'const') return unmodelled(`compares ${read.path} with another value that depends on the context`);
    const literal = constantOf(other.node);
    if (literal === undefined) return unmodelled(`compares ${read.path} with a value that cannot be evaluated`);
    const loose = operator === '==' || operator === '!=';
    const value = literal.value;
    switch (read.pathKind) {
      case 'text':
      case 'optional-text':
        if (typeof value === 'string') return atom(read, { op: 'eq', value, loose: false });
        // `var` reads an absent value as null: `== null` and `=== null` both test absence.
        if (value === null) return atom(read, { op: 'eq', value: null, loose });
        if (!loose) return dynamic; // a string is never strictly equal to a non-string: constant
        return unmodelled(`loose ${operator} of ${read.path} with ${JSON.stringify(value)} (compare with a string)`);
      case 'claim':
        if (!loose || typeof value === 'string' || value === null) return atom(read, { op: 'eq', value, loose });
        return unmodelled(`loose ${operator} of ${read.path} with ${JSON.stringify(value)} (use === or a string)`);
      default:
        return unmodelled(`compares ${read.path} with ${operator}`);
    }
  }

  function atom(read: { path: string; pathKind: PathKind }, test: Atom): Walked {
    addAtom(found, read.path, read.pathKind, test);
    return dynamic;
  }

  function membership(needle: Walked, haystack: Walked, needleNode: unknown, haystackNode: unknown): Walked {
    if (needle.kind === 'const' && haystack.kind === 'const') return { kind: 'const', node: { in: [needleNode, haystackNode] } };
    if (needle.kind === 'read' && haystack.kind === 'const') {
      const list = constantOf(haystackNode)?.value;
      if (Array.isArray(list)) {
        if (needle.pathKind === 'text' || needle.pathKind === 'optional-text' || needle.pathKind === 'claim') {
          // Strict membership: one strict equality per item (items a string can never equal are constant false).
          for (const item of list) {
            if (needle.pathKind === 'claim' || typeof item === 'string') addAtom(found, needle.path, needle.pathKind, { op: 'eq', value: item, loose: false });
          }
          return dynamic;
        }
        return unmodelled(`tests ${needle.path} for membership in a list`);
      }
      return unmodelled(`tests whether ${needle.path} is a substring of a literal`);
    }
    if (haystack.kind === 'read' && needle.kind === 'const') {
      const item = constantOf(needleNode)?.value;
      if (haystack.pathKind === 'scopes') {
        if (typeof item === 'string') return atom(haystack, { op: 'member', value: item });
        return dynamic; // scopes hold strings only: constant false
      }
      if (haystack.pathKind === 'text' || haystack.pathKind === 'optional-text') {
        if (typeof item === 'string' && item !== '') return atom(haystack, { op: 'contains', value: item });
        return dynamic; // the empty string and non-strings are never found: constant false
      }
      return unmodelled(`"in" on ${haystack.path}`);
    }
    if (needle.kind === 'read' || haystack.kind === 'read') return unmodelled('"in" between two values that depend on the context');
    return dynamic;
  }

  function affix(operator: 'starts_with' | 'ends_with', value: Walked, affixWalked: Walked, valueNode: unknown, affixNode: unknown): Walked {
    if (value.kind === 'const' && affixWalked.kind === 'const') return { kind: 'const', node: { [operator]: [valueNode, affixNode] } };
    if (value.kind === 'read' && affixWalked.kind === 'const') {
      const literal = constantOf(affixNode)?.value;
      if (typeof literal !== 'string') return unmodelled(`${operator} with a value that is not a string`);
      if (value.pathKind === 'text' || value.pathKind === 'optional-text' || value.pathKind === 'claim') {
        return atom(value, { op: operator === 'starts_with' ? 'prefix' : 'suffix', value: literal });
      }
      return unmodelled(`${operator} on ${value.path}`);
    }
    return unmodelled(`${operator} whose affix depends on the context`);
  }

  function glob(pattern: Walked, value: Walked, patternNode: unknown, valueNode: unknown): Walked {
    if (pattern.kind === 'const' && value.kind === 'const') return { kind: 'const', node: { glob: [patternNode, valueNode] } };
    if (pattern.kind === 'const' && value.kind === 'read') {
      const literal = constantOf(patternNode)?.value;
      if (typeof literal !== 'string') return dynamic; // compile error or constant false
      if (value.pathKind === 'text' || value.pathKind === 'optional-text' || value.pathKind === 'claim') return atom(value, { op: 'glob', value: literal });
      return unmodelled(`glob on ${value.path}`);
    }
    return unmodelled('a glob over a value built from the context');
  }

  const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

  function semver(args: readonly unknown[]): Walked {
    const walked = args.map((arg) => walk(arg, false));
    const [actual, operator, target] = walked as [Walked, Walked, Walked];
    if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { sem_ver: args } };
    if (operator.kind !== 'const') return unmodelled('a sem_ver operator that depends on the context');
    const operatorValue = constantOf(args[1])?.value;
    if (typeof operatorValue !== 'string' || !versionOperators.has(operatorValue)) return dynamic;
    const read = actual.kind === 'read' ? actual : target.kind === 'read' ? target : undefined;
    if (read === undefined) return walked.some((item) => item.kind === 'read') ? unmodelled('sem_ver') : dynamic;
    const otherNode = read === actual ? args[2] : args[0];
    const other = read === actual ? target : actual;
    if (other.kind !== 'const') return unmodelled(`sem_ver between ${read.path} and another value that depends on the context`);
    const version = constantOf(otherNode)?.value;
    // A literal that is not a version makes sem_ver null whatever the context holds.
    if (parseSemVer(version) === null) return dynamic;
    if (read.pathKind !== 'text' && read.pathKind !== 'optional-text') return unmodelled(`sem_ver on ${read.path}`);
    const op = read === actual ? operatorValue : (flipped[operatorValue] ?? operatorValue);
    return atom(read, { op: 'semver', operator: op, version: String(version) });
  }

  /**
   * `<`, `<=`, `>`, `>=` between a context value and a number, and the between forms
   * `{"<": [low, x, high]}` (two comparisons, each an atom or a constant). With a number on
   * one side JavaScript compares numerically whatever the other side holds, so the read's
   * numeric value is cut at the literal; a string literal would compare strings by code units,
   * which is not modelled.
   */
  function order(operator: OrderOperator, args: readonly unknown[]): Walked {
    const walked = args.map((arg) => walk(arg, false));
    if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { [operator]: args } };
    if (args.length === 3 && (operator === '<' || operator === '<=')) {
      orderPair(operator, walked[0]!, walked[1]!, args[0], args[1]);
      orderPair(operator, walked[1]!, walked[2]!, args[1], args[2]);
      return dynamic;
    }
    if (args.length !== 2) return unmodelled(`"${operator}" with ${args.length} arguments`);
    orderPair(operator, walked[0]!, walked[1]!, args[0], args[1]);
    return dynamic;
  }

  function orderPair(operator: OrderOperator, left: Walked, right: Walked, leftNode: unknown, rightNode: unknown): void {
    if (left.kind !== 'read' && right.kind !== 'read') return; // a constant, or a value built from atoms
    if (left.kind === 'read' && right.kind === 'read') {
      unmodelled(`orders ${left.path} against ${right.path}`);
      return;
    }
    const read = (left.kind === 'read' ? left : right) as Extract<Walked, { kind: 'read' }>;
    const other = read === left ? right : left;
    if (other.kind !== 'const') {
      unmodelled(`orders ${read.path} against another value that depends on the context`);
      return;
    }
    const literal = constantOf(read === left ? rightNode : leftNode);
    if (literal === undefined || typeof literal.value !== 'number' || !Number.isFinite(literal.value)) {
      unmodelled(`orders ${read.path} against ${literal === undefined ? 'a value that cannot be evaluated' : JSON.stringify(literal.value)} (compare with a number)`);
      return;
    }
    if (read.pathKind !== 'text' && read.pathKind !== 'optional-text' && read.pathKind !== 'claim') {
      unmodelled(`orders ${read.path} with "${operator}"`);
      return;
    }
    atom(read, { op: 'order', value: literal.value });
  }

  function presence(name: string, args: readonly unknown[]): Walked {
    const last = args[args.length - 1];
    if (name === 'has' && args.length === 1 && typeof args[0] === 'string') {
      addAtom(found, 'client.capabilities', 'capabilities', { op: 'capability', value: args[0] });
      return dynamic;
    }
    if (name === 'has_all' && args.every((arg) => typeof arg === 'string')) {
      for (const path of args as string[]) addAtom(found, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
      return dynamic;
    }
    if (name === 'has_all' && args.length === 1 && Array.isArray(last) && last.every((path) => typeof path === 'string')) {
      for (const path of last as string[]) addAtom(found, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
      return dynamic;
    }
    const walked = args.map((arg) => walk(arg, false));
    if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { [name]: args } };
    return unmodelled(`${name} of a value other than the client's capabilities`);
  }

  function missing(name: string, args: readonly unknown[]): Walked {
    const keys = name === 'missing_some' ? [args[1]] : args;
    if (name === 'missing_some' && walk(args[0], false).kind !== 'const') return unmodelled('missing_some with a count that depends on the context');
    const paths = keys.flatMap((key) => (Array.isArray(key) ? key : [key]));
    let readsContext = false;
    for (const key of paths) {
      if (typeof key !== 'string') return unmodelled(`${name} with a computed key`);
      const [root] = splitPath(key);
      if (!contextRoots.has(root!)) continue;
      const kind = pathKindOf(key);
      if (kind === undefined || kind === 'capabilities') return unmodelled(`${name} of ${key}, which the analysis does not partition`);
      addAtom(found, key, kind, { op: 'missing' });
      readsContext = true;
    }
    return readsContext ? dynamic : { kind: 'const', node: { [name]: args } };
  }

  /** The context paths a bucketing key reads (the default key reads the subject or else the client name). */
  function markOpaque(key: unknown, defaultKey: boolean): void {
    const paths = defaultKey ? ['auth.subject', 'client.name'] : [...JSON.stringify(key).matchAll(/"var":\s*(?:\[\s*)?"([^"]+)"/g)].map((match) => match[1]!);
    for (const path of paths) {
      const kind = pathKindOf(path);
      if (kind !== undefined) found.opaque.set(path, kind);
    }
  }

  function walk(node: unknown, truth: boolean): Walked {
    if (Array.isArray(node)) {
      const items = node.map((item) => walk(item, false));
      for (const item of items) if (item.kind === 'read') return valueOf(item, 'an array literal');
      return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
    }
    if (node === null || typeof node !== 'object') return { kind: 'const', node };
    const keys = Object.keys(node);
    if (keys.length !== 1) return { kind: 'const', node };
    const name = keys[0]!;
    const raw = (node as Record<string, unknown>)[name];
    const args: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
    const walked = (): Walked[] => args.map((arg) => walk(arg, false));
    switch (name) {
      case 'var': {
        const read = readVar(args);
        return truth ? truthOf(read) : read;
      }
      case '!':
      case '!!': {
        const inner = truthOf(walk(args[0], true));
        return inner.kind === 'const' ? { kind: 'const', node } : dynamic;
      }
      case 'and':
      case 'or': {
        // They return an operand: in a truth position only its truthiness counts.
        const items = args.map((arg) => walk(arg, truth)).map((item) => (truth ? truthOf(item) : valueOf(item, name)));
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
      case 'if':
      case '?:': {
        const items = args.map((arg, index) => {
          const isCondition = index % 2 === 0 && index < args.length - 1;
          const item = walk(arg, isCondition || truth);
          return isCondition || truth ? truthOf(item) : valueOf(item, name);
        });
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
      case '==':
      case '===':
      case '!=':
      case '!==': {
        const [left, right] = walked() as [Walked, Walked];
        return comparison(name, left, right, args[0], args[1]);
      }
      case 'in': {
        const [needle, haystack] = walked() as [Walked, Walked];
        return membership(needle, haystack, args[0], args[1]);
      }
      case 'starts_with':
      case 'ends_with': {
        const [value, affixWalked] = walked() as [Walked, Walked];
        return affix(name, value, affixWalked, args[0], args[1]);
      }
      case 'glob': {
        const [pattern, value] = walked() as [Walked, Walked];
        return glob(pattern, value, args[0], args[1]);
      }
      case 'sem_ver':
        return semver(args);
      case '<':
      case '<=':
      case '>':
      case '>=':
        return order(name, args);
      case 'has':
      case 'has_all':
        return presence(name, args);
      case 'missing':
      case 'missing_some':
        return missing(name, args);
      case 'fractional':
        markOpaque(args[0] !== undefined && !Array.isArray(args[0]) ? args[0] : { var: 'auth.subject' }, args[0] === undefined || Array.isArray(args[0]));
        return unmodelled('fractional buckets callers by a hash, which the analysis does not model');
      default: {
        const operator = builtinOperators.get(name);
        if (operator === undefined) return unmodelled(`custom operator "${name}"`);
        const itemArgs = operator.itemArgs ?? [];
        // Bodies of array operators read the current item, never the context.
        const items = args.map((arg, index) => (itemArgs.includes(index) ? ({ kind: 'const', node: arg } as Walked) : walk(arg, false)));
        for (const item of items) if (item.kind === 'read') return valueOf(item, name);
        return items.every((item) => item.kind === 'const') ? { kind: 'const', node } : dynamic;
      }
    }
  }

  truthOf(walk(condition, true));
  return found;
}

/** The metadata value of `primitive.<path>` (for requirements and for building literals). */
export function primitiveField(primitive: PrimitiveMetadata, path: string): unknown {
  return readPath(primitive, splitPath(path));
}

/** What a primitive's requirements read: each capability path, each header's value, the endpoint against each glob. */
export function requirementAtomsOf(primitive: PrimitiveMetadata): ConditionAtoms {
  const atoms = emptyAtoms();
  for (const path of primitive.requires.capabilities) addAtom(atoms, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
  for (const [name, value] of Object.entries(primitive.requires.headers))
    addAtom(atoms, `request.headers.${name.toLowerCase()}`, 'optional-text', { op: 'eq', value, loose: false });
  for (const pattern of primitive.endpoints) addAtom(atoms, 'request.endpoint', 'text', { op: 'glob', value: pattern });
  return atoms;
}

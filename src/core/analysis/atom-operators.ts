import { splitPath } from '../logic/path.js';
import { parseSemVer, versionOperators } from '../logic/semver.js';
import { addAtom, contextRoots, pathKindOf, type Atom, type ConditionAtoms, type OrderOperator, type PathKind } from './condition-atoms.js';

// How each operator that can test a context path turns into atoms (condition-atoms.ts), for the
// walk in atoms.ts: an operator whose context operand is a raw read and whose other operand is
// a literal gives atoms; any other use of a context value is unmodelled, with the reason.

/** What walking a node found: a literal, a raw context read still looking for its test, or a value built from atoms. */
export type Walked =
  { readonly kind: 'const'; readonly node: unknown } | { readonly kind: 'read'; readonly path: string; readonly pathKind: PathKind } | { readonly kind: 'dynamic' };

export const dynamic: Walked = { kind: 'dynamic' };

/** What an operator's handler uses of the walk it is called from. */
export interface AtomScope {
  /** The atoms of the condition walked so far. */
  readonly found: ConditionAtoms;
  /** Records why the condition cannot be modelled exactly; the value is then `dynamic`. */
  unmodelled(reason: string): Walked;
  /** The value of a literal subtree (primitive fields included); undefined when it cannot be evaluated. */
  constantOf(node: unknown): { value: unknown } | undefined;
  walk(node: unknown, truth: boolean): Walked;
}

export function atom(scope: AtomScope, read: { path: string; pathKind: PathKind }, test: Atom): Walked {
  addAtom(scope.found, read.path, read.pathKind, test);
  return dynamic;
}

/** `a <op> b` where one side is a raw read and the other a literal. */
export function comparison(scope: AtomScope, operator: string, left: Walked, right: Walked, leftNode: unknown, rightNode: unknown): Walked {
  if (left.kind === 'const' && right.kind === 'const') return { kind: 'const', node: { [operator]: [leftNode, rightNode] } };
  const read = left.kind === 'read' ? left : right.kind === 'read' ? right : undefined;
  const other = read === left ? right : left;
  if (read === undefined) return dynamic;
  if (other.kind !== 'const') return scope.unmodelled(`compares ${read.path} with another value that depends on the context`);
  const literal = scope.constantOf(other.node);
  if (literal === undefined) return scope.unmodelled(`compares ${read.path} with a value that cannot be evaluated`);
  const loose = operator === '==' || operator === '!=';
  const value = literal.value;
  switch (read.pathKind) {
    case 'text':
    case 'optional-text':
      if (typeof value === 'string') return atom(scope, read, { op: 'eq', value, loose: false });
      // `var` reads an absent value as null: `== null` and `=== null` both test absence.
      if (value === null) return atom(scope, read, { op: 'eq', value: null, loose });
      if (!loose) return dynamic; // a string is never strictly equal to a non-string: constant
      return scope.unmodelled(`loose ${operator} of ${read.path} with ${JSON.stringify(value)} (compare with a string)`);
    case 'claim':
      if (!loose || typeof value === 'string' || value === null) return atom(scope, read, { op: 'eq', value, loose });
      return scope.unmodelled(`loose ${operator} of ${read.path} with ${JSON.stringify(value)} (use === or a string)`);
    default:
      return scope.unmodelled(`compares ${read.path} with ${operator}`);
  }
}

export function membership(scope: AtomScope, needle: Walked, haystack: Walked, needleNode: unknown, haystackNode: unknown): Walked {
  if (needle.kind === 'const' && haystack.kind === 'const') return { kind: 'const', node: { in: [needleNode, haystackNode] } };
  if (needle.kind === 'read' && haystack.kind === 'const') {
    const list = scope.constantOf(haystackNode)?.value;
    if (Array.isArray(list)) {
      if (needle.pathKind === 'text' || needle.pathKind === 'optional-text' || needle.pathKind === 'claim') {
        // Strict membership: one strict equality per item (items a string can never equal are constant false).
        for (const item of list) {
          if (needle.pathKind === 'claim' || typeof item === 'string') addAtom(scope.found, needle.path, needle.pathKind, { op: 'eq', value: item, loose: false });
        }
        return dynamic;
      }
      return scope.unmodelled(`tests ${needle.path} for membership in a list`);
    }
    return scope.unmodelled(`tests whether ${needle.path} is a substring of a literal`);
  }
  if (haystack.kind === 'read' && needle.kind === 'const') {
    const item = scope.constantOf(needleNode)?.value;
    if (haystack.pathKind === 'scopes') {
      if (typeof item === 'string') return atom(scope, haystack, { op: 'member', value: item });
      return dynamic; // scopes hold strings only: constant false
    }
    if (haystack.pathKind === 'text' || haystack.pathKind === 'optional-text') {
      if (typeof item === 'string' && item !== '') return atom(scope, haystack, { op: 'contains', value: item });
      return dynamic; // the empty string and non-strings are never found: constant false
    }
    return scope.unmodelled(`"in" on ${haystack.path}`);
  }
  if (needle.kind === 'read' || haystack.kind === 'read') return scope.unmodelled('"in" between two values that depend on the context');
  return dynamic;
}

export function affix(scope: AtomScope, operator: 'starts_with' | 'ends_with', value: Walked, affixWalked: Walked, valueNode: unknown, affixNode: unknown): Walked {
  if (value.kind === 'const' && affixWalked.kind === 'const') return { kind: 'const', node: { [operator]: [valueNode, affixNode] } };
  if (value.kind === 'read' && affixWalked.kind === 'const') {
    const literal = scope.constantOf(affixNode)?.value;
    if (typeof literal !== 'string') return scope.unmodelled(`${operator} with a value that is not a string`);
    if (value.pathKind === 'text' || value.pathKind === 'optional-text' || value.pathKind === 'claim') {
      return atom(scope, value, { op: operator === 'starts_with' ? 'prefix' : 'suffix', value: literal });
    }
    return scope.unmodelled(`${operator} on ${value.path}`);
  }
  return scope.unmodelled(`${operator} whose affix depends on the context`);
}

export function glob(scope: AtomScope, pattern: Walked, value: Walked, patternNode: unknown, valueNode: unknown): Walked {
  if (pattern.kind === 'const' && value.kind === 'const') return { kind: 'const', node: { glob: [patternNode, valueNode] } };
  if (pattern.kind === 'const' && value.kind === 'read') {
    const literal = scope.constantOf(patternNode)?.value;
    if (typeof literal !== 'string') return dynamic; // compile error or constant false
    if (value.pathKind === 'text' || value.pathKind === 'optional-text' || value.pathKind === 'claim') return atom(scope, value, { op: 'glob', value: literal });
    return scope.unmodelled(`glob on ${value.path}`);
  }
  return scope.unmodelled('a glob over a value built from the context');
}

const flipped: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

export function semver(scope: AtomScope, args: readonly unknown[]): Walked {
  const walked = args.map((arg) => scope.walk(arg, false));
  const [actual, operator, target] = walked as [Walked, Walked, Walked];
  if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { sem_ver: args } };
  if (operator.kind !== 'const') return scope.unmodelled('a sem_ver operator that depends on the context');
  const operatorValue = scope.constantOf(args[1])?.value;
  if (typeof operatorValue !== 'string' || !versionOperators.has(operatorValue)) return dynamic;
  const read = actual.kind === 'read' ? actual : target.kind === 'read' ? target : undefined;
  if (read === undefined) return walked.some((item) => item.kind === 'read') ? scope.unmodelled('sem_ver') : dynamic;
  const otherNode = read === actual ? args[2] : args[0];
  const other = read === actual ? target : actual;
  if (other.kind !== 'const') return scope.unmodelled(`sem_ver between ${read.path} and another value that depends on the context`);
  const version = scope.constantOf(otherNode)?.value;
  // A literal that is not a version makes sem_ver null whatever the context holds.
  if (parseSemVer(version) === null) return dynamic;
  if (read.pathKind !== 'text' && read.pathKind !== 'optional-text') return scope.unmodelled(`sem_ver on ${read.path}`);
  const op = read === actual ? operatorValue : (flipped[operatorValue] ?? operatorValue);
  return atom(scope, read, { op: 'semver', operator: op, version: String(version) });
}

/**
 * `<`, `<=`, `>`, `>=` between a context value and a number, and the between forms
 * `{"<": [low, x, high]}` (two comparisons, each an atom or a constant). With a number on
 * one side JavaScript compares numerically whatever the other side holds, so the read's
 * numeric value is cut at the literal; a string literal would compare strings by code units,
 * which is not modelled.
 */
export function order(scope: AtomScope, operator: OrderOperator, args: readonly unknown[]): Walked {
  const walked = args.map((arg) => scope.walk(arg, false));
  if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { [operator]: args } };
  if (args.length === 3 && (operator === '<' || operator === '<=')) {
    orderPair(scope, operator, walked[0]!, walked[1]!, args[0], args[1]);
    orderPair(scope, operator, walked[1]!, walked[2]!, args[1], args[2]);
    return dynamic;
  }
  if (args.length !== 2) return scope.unmodelled(`"${operator}" with ${args.length} arguments`);
  orderPair(scope, operator, walked[0]!, walked[1]!, args[0], args[1]);
  return dynamic;
}

function orderPair(scope: AtomScope, operator: OrderOperator, left: Walked, right: Walked, leftNode: unknown, rightNode: unknown): void {
  if (left.kind !== 'read' && right.kind !== 'read') return; // a constant, or a value built from atoms
  if (left.kind === 'read' && right.kind === 'read') {
    scope.unmodelled(`orders ${left.path} against ${right.path}`);
    return;
  }
  const read = (left.kind === 'read' ? left : right) as Extract<Walked, { kind: 'read' }>;
  const other = read === left ? right : left;
  if (other.kind !== 'const') {
    scope.unmodelled(`orders ${read.path} against another value that depends on the context`);
    return;
  }
  const literal = scope.constantOf(read === left ? rightNode : leftNode);
  if (literal === undefined || typeof literal.value !== 'number' || !Number.isFinite(literal.value)) {
    scope.unmodelled(`orders ${read.path} against ${literal === undefined ? 'a value that cannot be evaluated' : JSON.stringify(literal.value)} (compare with a number)`);
    return;
  }
  if (read.pathKind !== 'text' && read.pathKind !== 'optional-text' && read.pathKind !== 'claim') {
    scope.unmodelled(`orders ${read.path} with "${operator}"`);
    return;
  }
  atom(scope, read, { op: 'order', value: literal.value });
}

export function presence(scope: AtomScope, name: string, args: readonly unknown[]): Walked {
  const last = args[args.length - 1];
  if (name === 'has' && args.length === 1 && typeof args[0] === 'string') {
    addAtom(scope.found, 'client.capabilities', 'capabilities', { op: 'capability', value: args[0] });
    return dynamic;
  }
  if (name === 'has_all' && args.every((arg) => typeof arg === 'string')) {
    for (const path of args as string[]) addAtom(scope.found, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
    return dynamic;
  }
  if (name === 'has_all' && args.length === 1 && Array.isArray(last) && last.every((path) => typeof path === 'string')) {
    for (const path of last as string[]) addAtom(scope.found, 'client.capabilities', 'capabilities', { op: 'capability', value: path });
    return dynamic;
  }
  const walked = args.map((arg) => scope.walk(arg, false));
  if (walked.every((item) => item.kind === 'const')) return { kind: 'const', node: { [name]: args } };
  return scope.unmodelled(`${name} of a value other than the client's capabilities`);
}

export function missing(scope: AtomScope, name: string, args: readonly unknown[]): Walked {
  const keys = name === 'missing_some' ? [args[1]] : args;
  if (name === 'missing_some' && scope.walk(args[0], false).kind !== 'const') return scope.unmodelled('missing_some with a count that depends on the context');
  const paths = keys.flatMap((key) => (Array.isArray(key) ? key : [key]));
  let readsContext = false;
  for (const key of paths) {
    if (typeof key !== 'string') return scope.unmodelled(`${name} with a computed key`);
    const [root] = splitPath(key);
    if (!contextRoots.has(root!)) continue;
    const kind = pathKindOf(key);
    if (kind === undefined || kind === 'capabilities') return scope.unmodelled(`${name} of ${key}, which the analysis does not partition`);
    addAtom(scope.found, key, kind, { op: 'missing' });
    readsContext = true;
  }
  return readsContext ? dynamic : { kind: 'const', node: { [name]: args } };
}

/** The context paths a bucketing key reads (the default key reads the subject or else the client name). */
export function markOpaque(scope: AtomScope, key: unknown, defaultKey: boolean): void {
  const paths = defaultKey ? ['auth.subject', 'client.name'] : [...JSON.stringify(key).matchAll(/"var":\s*(?:\[\s*)?"([^"]+)"/g)].map((match) => match[1]!);
  for (const path of paths) {
    const kind = pathKindOf(path);
    if (kind !== undefined) scope.found.opaque.set(path, kind);
  }
}

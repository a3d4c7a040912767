import { compilePresenceCheck } from '../logic/capability-path.js';
import type { Atom, PathKind } from './condition-atoms.js';
import { stringClasses, type StringTest } from './string-classes.js';
import { versionClasses } from './version-classes.js';

// One representative value per class of a context path: two values of one class give the same
// answer to every atom that tests the path. Representatives come cheapest first (absent, then
// the shortest strings), so the first counterexample found is already small.

export interface ValueClasses {
  /** `undefined` stands for an absent value. */
  readonly values: readonly unknown[];
  /** Why some class may have no representative; undefined when every class has one. */
  readonly inexact?: string | undefined;
}

const maxScopes = 10;
const maxCapabilities = 8;

export function valueClasses(path: string, kind: PathKind, atoms: readonly Atom[]): ValueClasses {
  switch (kind) {
    case 'text':
      return textClasses(path, atoms, false);
    case 'optional-text':
      return textClasses(path, atoms, true);
    case 'scopes':
      return scopeClasses(atoms);
    case 'capabilities':
      return capabilityClasses(atoms);
    case 'claim':
      return claimClasses(path, atoms);
  }
}

function stringTestOf(atom: Atom): StringTest | undefined {
  switch (atom.op) {
    case 'eq':
      return typeof atom.value === 'string' ? { op: 'eq', value: atom.value } : undefined;
    case 'prefix':
    case 'suffix':
    case 'contains':
    case 'glob':
      return { op: atom.op, value: atom.value };
    case 'truthy':
      return { op: 'nonempty' };
    case 'missing':
      // A string is missing when it is "".
      return { op: 'eq', value: '' };
    default:
      return undefined;
  }
}

function textClasses(path: string, atoms: readonly Atom[], optional: boolean): ValueClasses {
  const absent = optional ? [undefined] : [];
  const versions = atoms.filter((atom): atom is Extract<Atom, { op: 'semver' }> => atom.op === 'semver');
  const orders = atoms.filter((atom): atom is Extract<Atom, { op: 'order' }> => atom.op === 'order');
  const others = atoms.filter((atom) => atom.op !== 'semver' && atom.op !== 'order');
  const onlyEquality = others.every((atom) => atom.op === 'eq' || atom.op === 'truthy' || atom.op === 'missing');
  const witnesses = () => stringClasses(others.flatMap((atom) => stringTestOf(atom) ?? [])).witnesses;
  if (versions.length > 0 && orders.length > 0) {
    return { values: [...absent, ...witnesses(), ...numericStrings(orders, [])], inexact: `${path} is tested with sem_ver and with "<"/">" together` };
  }
  if (versions.length > 0 || orders.length > 0) {
    const what = versions.length > 0 ? 'sem_ver' : '"<"/">"';
    if (!onlyEquality) return { values: [...absent, ...witnesses()], inexact: `${path} is tested with ${what} and with string tests together` };
    const literals = others.flatMap((atom) => (atom.op === 'eq' && typeof atom.value === 'string' ? [atom.value] : []));
    if (orders.length > 0) return { values: [...absent, ...byLength(['', ...literals, ...numericStrings(orders, literals)])] };
    const classes = versionClasses(versions, literals);
    return { values: [...absent, ...classes.values], inexact: classes.inexact === undefined ? undefined : `${path}: ${classes.inexact}` };
  }
  const classes = stringClasses(atoms.flatMap((atom) => stringTestOf(atom) ?? []));
  return { values: [...absent, ...classes.witnesses], inexact: classes.complete ? undefined : `${path}: too many string classes to enumerate` };
}

/**
 * Numbers as "<" and ">" against literals see them: each literal, each gap between two (and
 * below the lowest, above the highest), when a double lies there. A double is all a string,
 * array or claim can coerce to, besides NaN (which no comparison holds for).
 */
function numericPoints(orders: ReadonlyArray<Extract<Atom, { op: 'order' }>>, extra: readonly number[] = []): number[] {
  const bounds = [...new Set([...orders.map((atom) => atom.value), ...extra].map((value) => (Object.is(value, -0) ? 0 : value)))].sort((a, b) => a - b);
  if (bounds.length === 0) return [];
  const points: number[] = [];
  const inside = (low: number, high: number, candidates: readonly number[]) => candidates.find((candidate) => candidate > low && candidate < high);
  const below = inside(-Infinity, bounds[0]!, [Math.ceil(bounds[0]!) - 1, -Number.MAX_VALUE]);
  points.push(below ?? -Infinity);
  bounds.forEach((bound, index) => {
    points.push(bound);
    const next = bounds[index + 1];
    const gap =
      next === undefined
        ? (inside(bound, Infinity, [Math.floor(bound) + 1, Number.MAX_VALUE]) ?? Infinity)
        : inside(bound, next, [Math.floor(bound) + 1, bound + (next - bound) / 2]);
    // Two adjacent doubles have nothing between them: that gap holds no value.
    if (gap !== undefined) points.push(gap);
  });
  return points;
}

/**
 * Non-empty strings, none an equality literal, one for each numeric class (spelt with a space
 * when the plain spelling is a literal) and one that is no number.
 */
function numericStrings(orders: ReadonlyArray<Extract<Atom, { op: 'order' }>>, literals: readonly string[]): string[] {
  const taken = new Set(['', ...literals]);
  const free = (spellings: readonly string[]) => spellings.find((spelling) => !taken.has(spelling));
  const values = numericPoints(orders).flatMap((point) => {
    const text = String(point);
    return free([text, ` ${text}`, `${text} `, `  ${text}`]) ?? [];
  });
  const notANumber = free(['x', 'xx', 'xxx', 'y']);
  return notANumber === undefined ? values : [notANumber, ...values];
}

function byLength(values: readonly string[]): string[] {
  return [...new Set(values)].sort((a, b) => a.length - b.length);
}

function scopeClasses(atoms: readonly Atom[]): ValueClasses {
  const scopes = [...new Set(atoms.flatMap((atom) => (atom.op === 'member' ? [atom.value] : [])))].sort();
  const asksNonEmpty = atoms.some((atom) => atom.op === 'truthy');
  const shown = scopes.slice(0, maxScopes);
  const values: string[][] = [];
  for (let mask = 0; mask < 2 ** shown.length; mask++) values.push(shown.filter((_, index) => (mask & (2 ** index)) !== 0));
  values.sort((a, b) => a.length - b.length);
  // A list holding none of the scopes tested, but not empty.
  if (asksNonEmpty) values.splice(1, 0, [freshName(scopes)]);
  return { values, inexact: scopes.length > maxScopes ? `auth.scopes: more than ${maxScopes} scopes tested` : undefined };
}

function freshName(taken: readonly string[]): string {
  for (let length = 1; ; length++) {
    const name = 'x'.repeat(length);
    if (!taken.includes(name)) return name;
  }
}

/**
 * Capabilities: undeclared, or declaring some of the tested paths. A path whose parent is not
 * declared is written as one dotted key (`{"elicitation.url": {}}`), which presence checks also
 * read. Each combination is built and then checked with the real presence checks.
 */
function capabilityClasses(atoms: readonly Atom[]): ValueClasses {
  const paths = [...new Set(atoms.flatMap((atom) => (atom.op === 'capability' ? [atom.value] : [])))].sort();
  if (paths.length > maxCapabilities) return { values: [undefined, {}], inexact: `client.capabilities: more than ${maxCapabilities} capability paths tested` };
  const checks = paths.map(compilePresenceCheck);
  const values: unknown[] = [undefined];
  const failed: string[] = [];
  const subsets: string[][] = [];
  for (let mask = 0; mask < 2 ** paths.length; mask++) subsets.push(paths.filter((_, index) => (mask & (2 ** index)) !== 0));
  subsets.sort((a, b) => a.length - b.length);
  for (const declared of subsets) {
    const built = buildCapabilities(declared);
    const realized = checks.every((check, index) => check(built) === declared.includes(paths[index]!));
    if (realized) values.push(built);
    else failed.push(`{${declared.join(', ')}}`);
  }
  return { values, inexact: failed.length === 0 ? undefined : `client.capabilities: could not build a client declaring exactly ${failed.join(' or ')}` };
}

function buildCapabilities(declared: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  // Parents first, so a child lands under its declared parent.
  for (const path of [...declared].sort((a, b) => a.split('.').length - b.split('.').length)) {
    const segments = path.split('.');
    let node = root;
    let from = 0;
    // The deepest declared ancestor holds the rest as one key.
    for (let end = segments.length - 1; end > 0; end--) {
      const ancestor = segments.slice(0, end).join('.');
      if (!declared.includes(ancestor)) continue;
      node = walkTo(root, segments.slice(0, end), declared);
      from = end;
      break;
    }
    const key = segments.slice(from).join('.');
    if (node[key] === undefined) node[key] = {};
  }
  return root;
}

/** The object standing for a declared path, following the keys buildCapabilities wrote. */
function walkTo(root: Record<string, unknown>, segments: readonly string[], declared: readonly string[]): Record<string, unknown> {
  let node = root;
  let from = 0;
  for (let end = 1; end <= segments.length; end++) {
    const prefix = segments.slice(0, end).join('.');
    if (!declared.includes(prefix)) continue;
    const key = segments.slice(from, end).join('.');
    node = node[key] as Record<string, unknown>;
    from = end;
  }
  return node;
}

/**
 * A claim may hold any JSON value. Strings are partitioned like text; each other type has few
 * classes: `null`, `true`, `false`, numbers (0, each number a test names, one other), arrays
 * (`[]`, `[L]` for each string a loose `==` names — `["a"] == "a"` —, one other) and `{}`.
 * Numeric thresholds cut strings as they cut text, and numbers at each threshold and each gap.
 */
function claimClasses(path: string, atoms: readonly Atom[]): ValueClasses {
  if (atoms.some((atom) => atom.op === 'contains')) return { values: [undefined, '', 'x'], inexact: `${path}: "in" on a claim` };
  const orders = atoms.filter((atom): atom is Extract<Atom, { op: 'order' }> => atom.op === 'order');
  const stringTests = atoms.flatMap((atom) => stringTestOf(atom) ?? []);
  const numbers = new Set<number>([0, 1]);
  const arrays: unknown[][] = [[], ['x']];
  const others: unknown[] = [];
  for (const atom of atoms) {
    if (atom.op !== 'eq') continue;
    if (typeof atom.value === 'number') numbers.add(atom.value);
    else if (typeof atom.value === 'string' && atom.loose) {
      const number = Number(atom.value);
      if (Number.isFinite(number)) numbers.add(number);
      arrays.push([atom.value]);
    } else if (typeof atom.value !== 'string' && atom.value !== null && typeof atom.value !== 'boolean') others.push(atom.value);
  }
  let fresh = 2;
  while (numbers.has(fresh)) fresh++;
  numbers.add(fresh);
  let strings: readonly string[];
  let inexact: string | undefined;
  if (orders.length > 0) {
    // Strings are cut as text is (equalities and thresholds together); an array compares as
    // its string does, so it answers like a string of the same class that is no literal (or
    // like [L], above, for a loose == L); numbers are cut at the thresholds and at every
    // number an equality names.
    if (stringTests.some((test) => test.op !== 'eq' && test.op !== 'nonempty')) inexact = `${path} is tested with "<"/">" and with string tests together`;
    const literals = stringTests.flatMap((test) => (test.op === 'eq' ? [test.value] : []));
    strings = byLength(['', ...literals, ...numericStrings(orders, literals), ...(inexact === undefined ? [] : stringClasses(stringTests).witnesses)]);
    for (const point of numericPoints(orders, [...numbers])) if (Number.isFinite(point)) numbers.add(point);
  } else {
    const classes = stringClasses(stringTests);
    strings = classes.witnesses;
    if (!classes.complete) inexact = `${path}: too many string classes to enumerate`;
  }
  const uniqueArrays = [...new Map(arrays.map((array) => [JSON.stringify(array), array])).values()];
  const values = [undefined, ...strings, null, true, false, ...[...numbers].sort((a, b) => a - b), ...uniqueArrays, {}, ...others];
  return { values, inexact };
}

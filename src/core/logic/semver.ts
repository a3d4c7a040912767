// `sem_ver` as flagd evaluates it: versions follow Go's golang.org/x/mod/semver (which flagd's Go
// evaluator uses) — strict SemVer 2.0, plus the shorthands "1" and "1.2" (no prerelease or build on
// those) — after stripping one leading "v" or "V"; numbers are read as their decimal text, so 1.2
// is "1.2". `^` matches the major version and `~` major and minor, as in flagd (not npm ranges).
// A value that is not a version yields null, so the flag's default variant applies. The operator
// is in ops/semver.ts; flat tests (flat-tests.ts) compare through here too.

/** A parsed version. Numeric parts stay digit strings so any length compares exactly, as in Go. */
export interface SemVer {
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  /** Prerelease identifiers; empty for a release. Build metadata is dropped: it never affects order. */
  readonly prerelease: readonly string[];
  /** The order of a release with small parts as one number (major·2³² + minor·2¹⁶ + patch), so most comparisons are one subtraction; undefined otherwise. */
  readonly rank: number | undefined;
}

const number = '0|[1-9]\\d*';
const prereleaseIdentifier = `${number}|\\d*[A-Za-z-][0-9A-Za-z-]*`;
const versionPattern = new RegExp(
  `^[vV]?(${number})(?:\\.(${number})(?:\\.(${number})` +
    `(?:-((?:${prereleaseIdentifier})(?:\\.(?:${prereleaseIdentifier}))*))?` +
    `(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?)?)?$`,
);
const numericIdentifier = /^\d+$/;

/** Parses a version string or number the way flagd does; null when it is not a version. */
export function parseSemVer(value: unknown): SemVer | null {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return null;
  const match = versionPattern.exec(text);
  if (match === null) return null;
  const major = match[1]!;
  const minor = match[2] ?? '0';
  const patch = match[3] ?? '0';
  const prerelease = match[4] === undefined ? [] : match[4].split('.');
  return { major, minor, patch, prerelease, rank: rankOf(major, minor, patch, prerelease.length > 0) };
}

function rankOf(major: string, minor: string, patch: string, isPrerelease: boolean): number | undefined {
  if (isPrerelease || major.length > 6 || minor.length > 5 || patch.length > 5) return undefined;
  const [a, b, c] = [Number(major), Number(minor), Number(patch)];
  if (a >= 2 ** 20 || b >= 2 ** 16 || c >= 2 ** 16) return undefined;
  return a * 2 ** 32 + b * 2 ** 16 + c;
}

function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIdentifiers(a: string, b: string): number {
  const aNumeric = numericIdentifier.test(a);
  const bNumeric = numericIdentifier.test(b);
  if (aNumeric && bNumeric) return compareDigits(a, b);
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** SemVer 2.0 precedence: -1, 0 or 1. A prerelease sorts before its release. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  if (a.rank !== undefined && b.rank !== undefined) return a.rank === b.rank ? 0 : a.rank < b.rank ? -1 : 1;
  const core = compareDigits(a.major, b.major) || compareDigits(a.minor, b.minor) || compareDigits(a.patch, b.patch);
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1;
  }
  const shared = Math.min(a.prerelease.length, b.prerelease.length);
  for (let index = 0; index < shared; index++) {
    const order = compareIdentifiers(a.prerelease[index]!, b.prerelease[index]!);
    if (order !== 0) return order;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** The comparison operators of `sem_ver`. */
export const versionOperators: ReadonlySet<string> = new Set(['=', '!=', '<', '<=', '>', '>=', '^', '~']);

/** Whether `actual <operator> target` holds; `operator` is one of versionOperators. */
export function versionHolds(operator: string, actual: SemVer, target: SemVer): boolean {
  switch (operator) {
    case '^':
      return actual.major === target.major;
    case '~':
      return actual.major === target.major && actual.minor === target.minor;
  }
  const order = compareSemVer(actual, target);
  switch (operator) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

// Versions repeat across callers (a few client releases), so parses are shared by every
// sem_ver clause; the cache is bounded and simply starts over when full.
const parsedVersions = new Map<string, SemVer | null>();
const maxParsedVersions = 1024;

/** The version a value stands for (null when none), parsed once per distinct string. */
export function readVersion(value: unknown): SemVer | null {
  if (typeof value !== 'string' || value.length > 256) return parseSemVer(value);
  const known = parsedVersions.get(value);
  if (known !== undefined) return known;
  const version = parseSemVer(value);
  if (parsedVersions.size >= maxParsedVersions) parsedVersions.clear();
  parsedVersions.set(value, version);
  return version;
}

/** A `sem_ver` comparison with literal operator and target. */
export interface VersionComparison {
  readonly operator: string;
  readonly target: SemVer;
  /** The operator's position in `=`, `!=`, `<`, `<=`, `>`, `>=` (-1 for `^`, `~`): ranks compare by number. */
  readonly order: number;
}

const orderOperators = ['=', '!=', '<', '<=', '>', '>='];

export function versionComparison(operator: string, target: SemVer): VersionComparison {
  return { operator, target, order: orderOperators.indexOf(operator) };
}

/** `sem_ver` of a value against a literal comparison: null when the value is not a version. */
export function compareToVersion(value: unknown, comparison: VersionComparison): boolean | null {
  const actual = readVersion(value);
  if (actual === null) return null;
  const rank = actual.rank;
  const target = comparison.target.rank;
  // Two plain releases (most versions): one number comparison, cases in orderOperators' order.
  if (rank !== undefined && target !== undefined) {
    switch (comparison.order) {
      case 0:
        return rank === target;
      case 1:
        return rank !== target;
      case 2:
        return rank < target;
      case 3:
        return rank <= target;
      case 4:
        return rank > target;
      case 5:
        return rank >= target;
    }
  }
  return versionHolds(comparison.operator, actual, comparison.target);
}

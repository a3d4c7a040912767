import { compareSemVer, parseSemVer, type SemVer } from '../logic/semver.js';
import type { Atom } from './condition-atoms.js';

// The value classes of a context path that sem_ver tests (value-classes.ts takes them for text
// paths with sem_ver atoms).

/**
 * Versions as sem_ver sees them: what a valid version answers depends only on where it lies
 * among the boundaries (each literal for `<`, `=`, …; the lowest version of a major or minor for
 * `^` and `~`). One version per boundary and per gap between two, spelt unlike any equality
 * literal, plus strings that are no version ("", a fresh one) and the literals themselves.
 */
export function versionClasses(atoms: ReadonlyArray<Extract<Atom, { op: 'semver' }>>, literals: readonly string[]): { values: string[]; inexact?: string } {
  const boundaries: SemVer[] = [];
  for (const atom of atoms) {
    const version = parseSemVer(atom.version)!;
    const major = BigInt(version.major);
    const minor = BigInt(version.minor);
    if (atom.operator === '^') boundaries.push(parseSemVer(`${major}.0.0-0`)!, parseSemVer(`${major + 1n}.0.0-0`)!);
    else if (atom.operator === '~') boundaries.push(parseSemVer(`${major}.${minor}.0-0`)!, parseSemVer(`${major}.${minor + 1n}.0-0`)!);
    else boundaries.push(version);
  }
  const sorted = boundaries.sort(compareSemVer).filter((version, index, all) => index === 0 || compareSemVer(all[index - 1]!, version) !== 0);
  const pool = versionPool(sorted);
  const taken = new Set(literals);
  const chosen: string[] = [];
  const missingClasses: string[] = [];
  // Class 2i+1 is boundary i itself; class 2i is the gap below it; class 2n the gap above the last.
  for (let classIndex = 0; classIndex <= 2 * sorted.length; classIndex++) {
    const member = pool.find((text) => !taken.has(text) && classOf(parseSemVer(text)!, sorted) === classIndex);
    if (member !== undefined) chosen.push(member);
    else if (classIndex % 2 === 1) missingClasses.push(format(sorted[(classIndex - 1) / 2]!));
    else if (classIndex === 0 || classIndex === 2 * sorted.length) missingClasses.push(classIndex === 0 ? `below ${format(sorted[0]!)}` : `above ${format(sorted.at(-1)!)}`);
    else missingClasses.push(`between ${format(sorted[classIndex / 2 - 1]!)} and ${format(sorted[classIndex / 2]!)}`);
  }
  const fresh = ['', 'x', 'xx', 'xxx'].filter((text) => !taken.has(text)).slice(0, 2);
  const values = [...new Set([...fresh, ...literals, ...chosen])].sort((a, b) => a.length - b.length);
  // Versions no spelling reached may not exist (nothing lies between 1.0.0-0 and 1.0.0-0.0).
  return missingClasses.length === 0 ? { values } : { values, inexact: `no version found ${missingClasses.join(', ')}` };
}

function classOf(version: SemVer, sorted: readonly SemVer[]): number {
  for (let index = 0; index < sorted.length; index++) {
    const order = compareSemVer(version, sorted[index]!);
    if (order < 0) return 2 * index;
    if (order === 0) return 2 * index + 1;
  }
  return 2 * sorted.length;
}

function format(version: SemVer): string {
  return `${version.major}.${version.minor}.${version.patch}${version.prerelease.length > 0 ? `-${version.prerelease.join('.')}` : ''}`;
}

/** Versions at, just below and just above each boundary, in several spellings. */
function versionPool(sorted: readonly SemVer[]): string[] {
  const pool = new Set<string>(['0.0.0', '0.0.0-0', '999999.0.0']);
  for (const version of sorted) {
    const [major, minor, patch] = [BigInt(version.major), BigInt(version.minor), BigInt(version.patch)];
    const base = format(version);
    const core = `${major}.${minor}.${patch}`;
    for (const text of [
      base,
      `v${base}`,
      `${base}+x`,
      core,
      `${core}-0`,
      `${core}-x`,
      `${base}.0`,
      `${base}.x`,
      `${major}.${minor}.${patch + 1n}`,
      `${major}.${minor}.${patch + 1n}-0`,
      `${major}.${minor + 1n}.0`,
      `${major + 1n}.0.0`,
      patch > 0n ? `${major}.${minor}.${patch - 1n}` : undefined,
      minor > 0n ? `${major}.${minor - 1n}.999999` : undefined,
      major > 0n ? `${major - 1n}.999999.999999` : undefined,
    ]) {
      if (text !== undefined && parseSemVer(text) !== null) pool.add(text);
    }
  }
  return [...pool].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

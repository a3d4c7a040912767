/** Path segments that would reach an object's prototype machinery instead of its data. */
export const forbiddenSegments: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** How json-logic-js turns a `var` argument into segments (`String(a).split('.')`). */
export function splitPath(path: unknown): string[] {
  return String(path).split('.');
}

/** True for the arguments `var` treats as "the whole data": undefined, null and "". */
export function isWholeDataPath(path: unknown): boolean {
  return path === undefined || path === null || path === '';
}

/**
 * Walks `segments` from `start`, reading own data only. Inherited members of plain data are
 * functions or `__proto__`, so refusing functions and forbidden names keeps the walk on own
 * properties without a `hasOwnProperty` call per step. Returns `undefined` when not found.
 */
export function readPath(start: unknown, segments: readonly string[]): unknown {
  let current = start;
  for (let index = 0; index < segments.length; index++) {
    if (current === null || current === undefined) return undefined;
    const segment = segments[index]!;
    if (forbiddenSegments.has(segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
    if (current === undefined || typeof current === 'function') return undefined;
  }
  return current;
}

/** Compiles a static walk for pre-split segments, unrolled for the common short paths. */
export function compilePathReader(segments: readonly string[]): (start: unknown) => unknown {
  const [first, second, third] = segments;
  switch (segments.length) {
    case 0:
      return function readWhole(start) {
        return start;
      };
    case 1:
      return function readOne(start) {
        if (start === null || start === undefined) return undefined;
        const value = (start as Record<string, unknown>)[first!];
        return typeof value === 'function' ? undefined : value;
      };
    case 2:
      return function readTwo(start) {
        if (start === null || start === undefined) return undefined;
        const middle = (start as Record<string, unknown>)[first!];
        if (middle === null || middle === undefined || typeof middle === 'function') return undefined;
        const value = (middle as Record<string, unknown>)[second!];
        return typeof value === 'function' ? undefined : value;
      };
    case 3:
      return function readThree(start) {
        if (start === null || start === undefined) return undefined;
        const outer = (start as Record<string, unknown>)[first!];
        if (outer === null || outer === undefined || typeof outer === 'function') return undefined;
        const inner = (outer as Record<string, unknown>)[second!];
        if (inner === null || inner === undefined || typeof inner === 'function') return undefined;
        const value = (inner as Record<string, unknown>)[third!];
        return typeof value === 'function' ? undefined : value;
      };
    case 4: {
      const fourth = segments[3]!;
      return function readFour(start) {
        if (start === null || start === undefined) return undefined;
        const outer = (start as Record<string, unknown>)[first!];
        if (outer === null || outer === undefined || typeof outer === 'function') return undefined;
        const middle = (outer as Record<string, unknown>)[second!];
        if (middle === null || middle === undefined || typeof middle === 'function') return undefined;
        const inner = (middle as Record<string, unknown>)[third!];
        if (inner === null || inner === undefined || typeof inner === 'function') return undefined;
        const value = (inner as Record<string, unknown>)[fourth];
        return typeof value === 'function' ? undefined : value;
      };
    }
    default:
      return function readMany(start) {
        return readPath(start, segments);
      };
  }
}

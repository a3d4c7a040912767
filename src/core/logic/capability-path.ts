import { forbiddenSegments } from './path.js';

/**
 * Presence of a capability path such as `sampling`, `elicitation.url` or
 * `extensions.com.example/report-export`. Extension names contain dots, so when the plain
 * segment walk finds nothing, dotted keys are tried (`com.example/report-export` as one key).
 * MCP declares capabilities as `{}`, so any value but undefined, null and false is present.
 */
export type PresenceCheck = (root: unknown) => boolean;

const maxSegments = 32;

export function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

/** Returns an error message for a path that can never be valid, or undefined. */
export function checkCapabilityPath(path: string): string | undefined {
  const segments = path.split('.');
  if (path === '' || segments.some((segment) => segment === '')) return `invalid capability path "${path}"`;
  if (segments.length > maxSegments) return `capability path "${path}" has more than ${maxSegments} segments`;
  const forbidden = segments.find((segment) => forbiddenSegments.has(segment));
  return forbidden === undefined ? undefined : `path segment "${forbidden}" is not allowed`;
}

export function compilePresenceCheck(path: string): PresenceCheck {
  const segments = path.split('.');
  if (segments.length === 1) {
    const [key] = segments as [string];
    return function hasKey(root) {
      return isPlainRecord(root) && Object.hasOwn(root, key) && isPresent(root[key]);
    };
  }
  // Every way of grouping the segments into keys, joined once here so a check allocates nothing.
  const keys = segments.map((_, from) => segments.map((__, end) => segments.slice(from, end + 1).join('.')));
  function find(node: unknown, from: number): boolean {
    if (from === segments.length) return isPresent(node);
    if (!isPlainRecord(node)) return false;
    const row = keys[from]!;
    for (let end = from; end < segments.length; end++) {
      const key = row[end]!;
      if (Object.hasOwn(node, key) && find(node[key], end + 1)) return true;
    }
    return false;
  }
  return function hasPath(root) {
    return find(root, 0);
  };
}

/** Presence for a path only known at run time; invalid paths are absent. */
export function hasCapabilityPath(root: unknown, path: unknown): boolean {
  if (typeof path !== 'string' || checkCapabilityPath(path) !== undefined) return false;
  return findPresent(root, path.split('.'), 0);
}

function findPresent(node: unknown, segments: readonly string[], from: number): boolean {
  if (from === segments.length) return isPresent(node);
  if (!isPlainRecord(node)) return false;
  let key = '';
  for (let end = from; end < segments.length; end++) {
    key = end === from ? segments[end]! : `${key}.${segments[end]}`;
    if (Object.hasOwn(node, key) && findPresent(node[key], segments, end + 1)) return true;
  }
  return false;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Where each value of a JSON text is, by the dot path compile issues use (`rules[0].when["!="][0]`),
// so an issue is drawn at its place in the editor. A small scanner: the text already parsed
// when it is asked, so it only records positions.
import { joinPath } from '../../src/core/errors.js';

export interface JsonRange {
  readonly from: number;
  readonly to: number;
  /** For an object member: where its key is (issues about a key, e.g. an unknown one, point here). */
  readonly keyFrom?: number;
  readonly keyTo?: number;
}

export function locateJsonPaths(text: string): Map<string, JsonRange> {
  const ranges = new Map<string, JsonRange>();
  let position = 0;
  const skipSpace = () => {
    while (position < text.length && /\s/.test(text[position]!)) position++;
  };
  const readString = (): string => {
    const start = position;
    position++;
    while (position < text.length && text[position] !== '"') position += text[position] === '\\' ? 2 : 1;
    position++;
    return JSON.parse(text.slice(start, position)) as string;
  };
  const value = (path: string, key?: { from: number; to: number }): void => {
    skipSpace();
    const from = position;
    const character = text[position];
    if (character === '{') {
      position++;
      skipSpace();
      while (position < text.length && text[position] !== '}') {
        skipSpace();
        const keyFrom = position;
        const name = readString();
        const keyTo = position;
        skipSpace();
        position++; // :
        value(joinPath(path, name), { from: keyFrom, to: keyTo });
        skipSpace();
        if (text[position] === ',') position++;
        skipSpace();
      }
      position++;
    } else if (character === '[') {
      position++;
      let index = 0;
      skipSpace();
      while (position < text.length && text[position] !== ']') {
        value(joinPath(path, index++));
        skipSpace();
        if (text[position] === ',') position++;
        skipSpace();
      }
      position++;
    } else if (character === '"') {
      readString();
    } else {
      while (position < text.length && /[^\s,\]}]/.test(text[position]!)) position++;
    }
    ranges.set(path, key === undefined ? { from, to: position } : { from, to: position, keyFrom: key.from, keyTo: key.to });
  };
  value('');
  return ranges;
}

/**
 * The range an issue path names, or its nearest enclosing value that exists (an issue may name a
 * key that is missing, e.g. `rules[0].effect`).
 */
export function rangeOfPath(ranges: ReadonlyMap<string, JsonRange>, path: string): JsonRange {
  let current = path;
  for (;;) {
    const found = ranges.get(current);
    if (found) return found;
    if (current === '') return { from: 0, to: 0 };
    current = parentPath(current);
  }
}

/**
 * Where the editor draws an issue: an unknown operator on its key, an unknown document key
 * (reported on its object, `Unrecognized key: "group"`) on that key, anything else on the value.
 */
export function rangeOfIssue(
  ranges: ReadonlyMap<string, JsonRange>,
  issue: { readonly code: string; readonly path: string; readonly message: string },
): { from: number; to: number } {
  const unknownKey = /^Unrecognized keys?: ("(?:[^"\\]|\\.)*")/.exec(issue.message)?.[1];
  const keyRange = unknownKey === undefined ? undefined : ranges.get(joinPath(issue.path, JSON.parse(unknownKey) as string));
  const range = keyRange ?? rangeOfPath(ranges, issue.path);
  const onKey = (keyRange !== undefined || issue.code === 'unknown_operator') && range.keyFrom !== undefined;
  const from = onKey ? range.keyFrom! : range.from;
  return { from, to: Math.max(onKey ? range.keyTo! : range.to, from + 1) };
}

function parentPath(path: string): string {
  const match = /(\.[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])$/.exec(path);
  return match ? path.slice(0, match.index) : '';
}

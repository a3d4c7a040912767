/**
 * Globs over names, URIs and URL paths: `*` matches any run of characters except `/`,
 * `**` any run including `/`, `?` one character except `/`; everything else is literal.
 * Matching is a set-of-states simulation, O(pattern × input) with no backtracking, so a
 * hostile pattern such as `*a*a*a*a*b` cannot stall a request.
 */
export type GlobMatcher = (value: string) => boolean;

/** One step of a glob: a literal character, `*` (not across `/`), `**` (across `/`) or `?`. */
export type GlobToken = { kind: 'literal'; char: string } | { kind: 'star' } | { kind: 'globstar' } | { kind: 'one' };

/** The two shapes most globs have, matched without the simulation: a literal, or a literal prefix (`/mcp/**`). */
export function simpleGlob(pattern: string): { exact: string } | { prefix: string } | undefined {
  if (!/[*?]/.test(pattern)) return { exact: pattern };
  const prefix = pattern.slice(0, -2);
  return pattern.endsWith('**') && !/[*?]/.test(prefix) ? { prefix } : undefined;
}

export function compileGlob(pattern: string): GlobMatcher {
  const simple = simpleGlob(pattern);
  if (simple !== undefined && 'exact' in simple) {
    return function matchExact(value) {
      return value === pattern;
    };
  }
  if (simple !== undefined) {
    const prefix = simple.prefix;
    return function matchPrefix(value) {
      return value.startsWith(prefix);
    };
  }
  const tokens = tokenizeGlob(pattern);
  return function matchGlob(value) {
    return simulate(tokens, value);
  };
}

/** A glob's steps; runs of `*` collapse. The analysis (core/analysis/string-classes.ts) reads the same steps. */
export function tokenizeGlob(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '*') {
      const doubled = pattern[index + 1] === '*';
      if (doubled) index++;
      while (pattern[index + 1] === '*') index++;
      tokens.push(doubled ? { kind: 'globstar' } : { kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'one' });
    } else {
      tokens.push({ kind: 'literal', char });
    }
  }
  return tokens;
}

function simulate(tokens: readonly GlobToken[], value: string): boolean {
  let states = new Uint8Array(tokens.length + 1);
  let next = new Uint8Array(tokens.length + 1);
  states[0] = 1;
  closeOverStars(tokens, states);
  for (let position = 0; position < value.length; position++) {
    const char = value[position]!;
    next.fill(0);
    let alive = false;
    for (let state = 0; state < tokens.length; state++) {
      if (!states[state]) continue;
      const token = tokens[state]!;
      if (token.kind === 'literal') {
        if (token.char === char) next[state + 1] = 1;
      } else if (token.kind === 'one') {
        if (char !== '/') next[state + 1] = 1;
      } else if (token.kind === 'globstar' || char !== '/') {
        next[state] = 1;
      }
      if (next[state] || next[state + 1]) alive = true;
    }
    if (!alive) return false;
    [states, next] = [next, states];
    closeOverStars(tokens, states);
  }
  return states[tokens.length] === 1;
}

/** A star may match nothing: every state before a star also stands after it. */
function closeOverStars(tokens: readonly GlobToken[], states: Uint8Array): void {
  for (let state = 0; state < tokens.length; state++) {
    const kind = tokens[state]!.kind;
    if (states[state] && (kind === 'star' || kind === 'globstar')) states[state + 1] = 1;
  }
}

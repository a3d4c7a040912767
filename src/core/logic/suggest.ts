/**
 * The closest known name to a misspelt one, or undefined when nothing is close. Case, word
 * separators and a plural ending are folded (`capability` → `capabilities`), and swapping two
 * neighbouring letters counts as one typo (`nmae` → `name`).
 */
export function suggestName(unknown: string, known: Iterable<string>): string | undefined {
  const normalized = singular(foldSeparators(unknown));
  // Lower-cased once, not once per candidate: a hostile policy's name can be megabytes long.
  const lowered = unknown.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    if (singular(foldSeparators(candidate)) === normalized) return candidate;
    const distance = editDistance(lowered, candidate.toLowerCase(), true);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = Math.max(1, Math.min(2, Math.floor(unknown.length / 3)));
  return bestDistance <= tolerance ? best : undefined;
}

/** Operator names keep their symbols (`==` vs `!=`); only case and word separators are folded. */
function foldSeparators(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, '');
}

/** `scopes` → `scope`, `capabilities` → `capability`: one name whether a typo is singular or plural. */
function singular(name: string): string {
  if (name.length > 4 && name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  return name.length > 3 && name.endsWith('s') ? name.slice(0, -1) : name;
}

/**
 * Levenshtein distance; with `transpositions`, swapping two neighbouring characters is one edit
 * (optimal string alignment). Infinity for names over 64 characters (never worth a suggestion).
 */
export function editDistance(a: string, b: string, transpositions = false): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
      }
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** Candidates close to a misspelt name, best first: prefix/substring matches, then small edit distance. */
export function closeMatches(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = normalize(input);
  const scored: Array<{ candidate: string; score: number }> = [];
  for (const candidate of candidates) {
    const normalized = normalize(candidate);
    let score: number;
    if (wanted.length > 0 && (normalized.startsWith(wanted) || normalized.includes(wanted))) score = 0;
    else score = editDistance(wanted, normalized);
    // Allow roughly one typo per three characters; anything further is noise, not a suggestion.
    if (score <= Math.max(1, Math.floor(wanted.length / 3))) scored.push({ candidate, score });
  }
  // Code-unit order, not localeCompare: the same suggestions on every machine and locale.
  const order = (candidate: string) => `${normalize(candidate)}\u0000${candidate}`;
  scored.sort((left, right) => left.score - right.score || (order(left.candidate) < order(right.candidate) ? -1 : 1));
  return scored.slice(0, limit).map(({ candidate }) => candidate);
}

/** Lower-cased with separators dropped, so `Claude Code`, `claude-code` and `claude_code` are one name. */
export function normalize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

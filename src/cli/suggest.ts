import { editDistance } from '../core/logic/suggest.js';

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

/** The closest known name to a misspelt one, or undefined when nothing is close. */
export function suggestName(unknown: string, known: Iterable<string>): string | undefined {
  const normalized = normalize(unknown);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    if (normalize(candidate) === normalized) return candidate;
    const distance = editDistance(unknown.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = Math.max(1, Math.min(2, Math.floor(unknown.length / 3)));
  return bestDistance <= tolerance ? best : undefined;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, '');
}

/** Levenshtein distance; Infinity for names over 64 characters (never worth a suggestion). */
export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Canonical JSON: object keys sorted, so equal documents serialize (and hash) equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A 64-bit content hash (two independent 32-bit FNV-1a-style lanes) as 16 hex digits. Not a
 * security boundary: it names a policy version in caches, cursors and decision logs.
 */
export function contentHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/**
 * The content hash of a JSON value as a Merkle hash: each object or array is hashed from its
 * keys and its children's hashes, once per distinct object. Equal content gives equal hashes; a
 * document built in code that shares one object in many places costs its distinct objects, not
 * its expanded size.
 */
export function contentRevision(value: unknown, memo = new Map<object, string>()): string {
  if (value === null || typeof value !== 'object') return contentHash(canonicalJson(value));
  const known = memo.get(value);
  if (known !== undefined) return known;
  const parts = Array.isArray(value)
    ? `[${value.map((item) => contentRevision(item, memo)).join(',')}]`
    : `{${Object.keys(value)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${contentRevision((value as Record<string, unknown>)[key], memo)}`)
        .join(',')}}`;
  const hash = contentHash(parts);
  memo.set(value, hash);
  return hash;
}

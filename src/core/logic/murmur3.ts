// MurmurHash3 x86 32-bit (Austin Appleby's reference, seed 0 in flagd) and flagd's v2 mapping of a
// hash onto a weight range. Hashing walks the string and produces its UTF-8 bytes on the fly, so a
// bucketing call allocates nothing (no TextEncoder buffer per key).

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixBlock(hash: number, block: number): number {
  let k = Math.imul(block, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  let h = hash ^ k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** The UTF-8 bytes of one code point packed little-endian: the first byte is the lowest. */
function encodeUtf8(codePoint: number): number {
  if (codePoint < 0x80) return codePoint;
  if (codePoint < 0x800) return 0xc0 | (codePoint >>> 6) | ((0x80 | (codePoint & 0x3f)) << 8);
  if (codePoint < 0x10000) {
    return 0xe0 | (codePoint >>> 12) | ((0x80 | ((codePoint >>> 6) & 0x3f)) << 8) | ((0x80 | (codePoint & 0x3f)) << 16);
  }
  return 0xf0 | (codePoint >>> 18) | ((0x80 | ((codePoint >>> 12) & 0x3f)) << 8) | ((0x80 | ((codePoint >>> 6) & 0x3f)) << 16) | ((0x80 | (codePoint & 0x3f)) << 24);
}

/** MurmurHash3 x86_32 of the UTF-8 bytes of `key`, as an unsigned 32-bit integer. */
export function murmurHash3(key: string, seed = 0): number {
  let hash = seed | 0;
  let block = 0;
  let filled = 0;
  let length = 0;
  for (let index = 0; index < key.length; index++) {
    let codePoint = key.charCodeAt(index);
    // Lone surrogates become U+FFFD, as TextEncoder and Go's JSON decoder do.
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
      const next = index + 1 < key.length ? key.charCodeAt(index + 1) : 0;
      if (codePoint <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (next - 0xdc00);
        index++;
      } else {
        codePoint = 0xfffd;
      }
    }
    const bytes = encodeUtf8(codePoint);
    const count = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    for (let byteIndex = 0; byteIndex < count; byteIndex++) {
      block |= ((bytes >>> (byteIndex * 8)) & 0xff) << (filled * 8);
      length++;
      if (++filled === 4) {
        hash = mixBlock(hash, block);
        block = 0;
        filled = 0;
      }
    }
  }
  if (filled > 0) {
    let k = Math.imul(block, C1);
    k = (k << 15) | (k >>> 17);
    hash ^= Math.imul(k, C2);
  }
  hash ^= length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * flagd v2 bucketing: `(hash * totalWeight) >> 32` in 64-bit integer arithmetic, a value in
 * [0, totalWeight). The product can reach 2^63, past a double's 53 bits, so it is split at 16 bits:
 * every partial product stays below 2^48 and the result is exact.
 */
export function scaleHash(hash: number, totalWeight: number): number {
  const high = Math.floor(hash / 0x10000);
  const low = hash % 0x10000;
  const lowProduct = low * totalWeight;
  const upper = high * totalWeight + Math.floor(lowProduct / 0x10000);
  return Math.floor(upper / 0x10000);
}

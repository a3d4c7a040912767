import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { murmurHash3, scaleHash } from '../../../src/core/logic/murmur3.js';

// An independent, byte-oriented MurmurHash3 x86_32 over TextEncoder output, to check the streaming
// UTF-8 encoder in murmurHash3 against.
function referenceHash(bytes: Uint8Array, seed: number): number {
  let hash = seed | 0;
  const blocks = bytes.length - (bytes.length % 4);
  const mix = (k: number): number => {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    return Math.imul(k, 0x1b873593);
  };
  for (let i = 0; i < blocks; i += 4) {
    hash ^= mix(bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let i = bytes.length - 1; i >= blocks; i--) tail = (tail << 8) | bytes[i]!;
  if (bytes.length > blocks) hash ^= mix(tail);
  hash ^= bytes.length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

describe('murmurHash3', () => {
  it('matches published MurmurHash3 x86_32 values', () => {
    expect(murmurHash3('')).toBe(0);
    expect(murmurHash3('hello')).toBe(0x248bfa47);
    expect(murmurHash3('test')).toBe(0xba6bd213);
    expect(murmurHash3('Hello, world!')).toBe(0xc0363e43);
    expect(murmurHash3('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723);
    expect(murmurHash3('', 1)).toBe(0x514e28b7);
    expect(murmurHash3('', 0xffffffff)).toBe(0x81f16f39);
    expect(murmurHash3('aaaa', 0x9747b28c)).toBe(0x5a97808a);
    expect(murmurHash3('Hello, world!', 0x9747b28c)).toBe(0x24884cba);
  });

  it('hashes the UTF-8 bytes of non-ASCII keys', () => {
    expect(murmurHash3('ππππππππ', 0x9747b28c)).toBe(0xd58063c1);
  });

  it('agrees with a byte-wise implementation over TextEncoder output for any string', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 0, max: 0xffffffff }), (key, seed) => {
        expect(murmurHash3(key, seed)).toBe(referenceHash(encoder.encode(key), seed));
      }),
      { seed: 1, numRuns: 500 },
    );
  });

  it('replaces lone surrogates with U+FFFD as TextEncoder does', () => {
    expect(murmurHash3('a\ud800b')).toBe(murmurHash3('a\ufffdb'));
    expect(murmurHash3('\udc00')).toBe(murmurHash3('\ufffd'));
  });
});

describe('scaleHash', () => {
  it('computes (hash * totalWeight) >> 32 exactly, past 2^53', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 0x7fffffff }), (hash, total) => {
        expect(scaleHash(hash, total)).toBe(Number((BigInt(hash) * BigInt(total)) >> 32n));
      }),
      { seed: 1, numRuns: 2000 },
    );
    expect(scaleHash(0xffffffff, 0x7fffffff)).toBe(0x7ffffffe);
    expect(scaleHash(0, 100)).toBe(0);
  });

  it('places the testbed edge keys at the ends of a 50/50 split', () => {
    // flagd-testbed chose these keys by brute force for hashes at the bucket boundaries.
    for (const key of ['ejOoVL', 'bY9fO-', 'SI7p-']) expect(scaleHash(murmurHash3(key), 100)).toBeLessThan(50);
    for (const key of ['6LvT0', 'ceQdGm']) expect(scaleHash(murmurHash3(key), 100)).toBeGreaterThanOrEqual(50);
  });
});

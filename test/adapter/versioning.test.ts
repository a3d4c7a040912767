import { describe, expect, it } from 'vitest';
import { compareVersionsDescending, publicToolName } from '../../src/adapter/versioning.js';

describe('publicToolName', () => {
  it('strips the separator and version only when the suffix equals the annotated version', () => {
    expect(publicToolName('search__2.0.0', '2.0.0', '__')).toBe('search');
    expect(publicToolName('search__2.0.0', '2.0.1', '__')).toBeUndefined();
    expect(publicToolName('search__2.0.0', undefined, '__')).toBeUndefined();
    expect(publicToolName('__2.0.0', '2.0.0', '__')).toBeUndefined();
    expect(publicToolName('search@1.0.0-canary', '1.0.0-canary', '@')).toBe('search');
  });
});

describe('compareVersionsDescending', () => {
  it('orders versions highest first, releases above their pre-releases, unversioned last', () => {
    const versions = ['1.4.0', '2.0.0-canary.1', undefined, '10.0.0', '2.0.0', '2.0.0-canary.2', '1.10.0', 'v3'];
    expect([...versions].sort(compareVersionsDescending)).toEqual(['10.0.0', 'v3', '2.0.0', '2.0.0-canary.2', '2.0.0-canary.1', '1.10.0', '1.4.0', undefined]);
  });
});

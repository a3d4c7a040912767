import { describe, expect, it } from 'vitest';
import { MetadataError } from '../../src/core/errors.js';
import { AnnotationParser, contentKey } from '../../src/adapter/annotation-parser.js';

const parse = (parser: AnnotationParser, raw: unknown) => parser.parse(raw, 'tool "t"', '_meta["mcp-gate"]');

describe('AnnotationParser', () => {
  it('sees an annotation changed in place (the cache is keyed by content, not by the object)', () => {
    const parser = new AnnotationParser();
    const raw: Record<string, unknown> = { groups: ['public'] };
    parser.beginBuild();
    expect(parse(parser, raw)).toEqual({ groups: ['public'] });
    raw['groups'] = ['admin'];
    parser.beginBuild();
    expect(parse(parser, raw)).toEqual({ groups: ['admin'] });
    raw['groups'] = 'admin';
    parser.beginBuild();
    expect(() => parse(parser, raw)).toThrow(MetadataError);
  });

  it('reuses the parse of equal content, also across one rebuild', () => {
    const parser = new AnnotationParser();
    parser.beginBuild();
    const first = parse(parser, { tags: ['a'], version: '1.0.0' });
    expect(parse(parser, { tags: ['a'], version: '1.0.0' })).toBe(first);
    parser.beginBuild();
    expect(parse(parser, { tags: ['a'], version: '1.0.0' })).toBe(first);
  });

  it('keeps only what the latest build read', () => {
    const parser = new AnnotationParser();
    parser.beginBuild();
    const first = parse(parser, { tags: ['a'] });
    parser.beginBuild();
    parser.beginBuild();
    expect(parse(parser, { tags: ['a'] })).not.toBe(first);
  });

  it('never lets data the key cannot see share a cached parse', () => {
    const parser = new AnnotationParser();
    parser.beginBuild();
    parse(parser, {});
    const hidden = Object.defineProperty({}, 'groups', { value: 'admin', enumerable: false });
    expect(() => parse(parser, hidden)).toThrow(MetadataError);
    expect(() => parse(parser, { version: () => '1.0.0' })).toThrow(MetadataError);
    parse(parser, { version: '2026-01-01T00:00:00.000Z' });
    expect(() => parse(parser, { version: new Date('2026-01-01T00:00:00.000Z') })).toThrow(MetadataError);
  });
});

describe('contentKey', () => {
  it('keys plain JSON data and refuses anything JSON would drop or convert', () => {
    expect(contentKey({ groups: ['a'], requires: { headers: { 'x-a': '1' } } })).toBe('{"groups":["a"],"requires":{"headers":{"x-a":"1"}}}');
    expect(contentKey(Object.assign(Object.create(null), { tags: ['a'] }))).toBe('{"tags":["a"]}');
    for (const value of [{ a: undefined }, { a: () => 1 }, { a: new Date(0) }, { a: Number.NaN }, { a: 1n }, [1, , 2], new Map(), Object.defineProperty({}, 'x', { value: 1 })]) {
      expect(contentKey(value)).toBeUndefined();
    }
  });
});

describe('AnnotationParser (unreadable annotations)', () => {
  it('reports a throwing getter as invalid metadata of that primitive, and a cycle by the schema', () => {
    const parser = new AnnotationParser();
    parser.beginBuild();
    const throwing = Object.defineProperty({}, 'groups', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(() => parse(parser, throwing)).toThrow(new MetadataError('tool "t"', [{ code: 'invalid_metadata', path: '_meta["mcp-gate"]', message: 'cannot be read: reading it threw' }]));
    const cyclic: Record<string, unknown> = { groups: ['a'] };
    cyclic['self'] = cyclic;
    expect(contentKey(cyclic)).toBeUndefined();
    expect(() => parse(parser, cyclic)).toThrow(/invalid metadata of tool "t"[\s\S]*Unrecognized key: "self"/);
  });
});

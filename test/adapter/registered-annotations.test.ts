import { describe, expect, it } from 'vitest';
import { MetadataError } from '../../src/core/errors.js';
import { buildCatalog, type PrimitiveSource } from '../../src/adapter/catalog.js';
import { parseRegisteredAnnotation } from '../../src/adapter/metadata.js';

const options = { version: 1, annotations: new Map(), versionSeparator: '__' };

describe('buildCatalog (annotations read afresh)', () => {
  it('sees an annotation changed in place on the next build, valid or not', () => {
    const annotation: Record<string, unknown> = { groups: ['public'] };
    const sources: PrimitiveSource[] = [{ kind: 'tool', key: 'reset', name: 'reset', meta: { 'mcp-gate': annotation } }];
    expect(buildCatalog(sources, options).get('tool', 'reset')!.metadata.groups).toEqual(['public']);
    annotation['groups'] = ['admin'];
    expect(buildCatalog(sources, options).get('tool', 'reset')!.metadata.groups).toEqual(['admin']);
    annotation['groups'] = 'admin';
    const broken = buildCatalog(sources, options);
    expect(broken.get('tool', 'reset')!.metadataError).toBeInstanceOf(MetadataError);
    expect(broken.errors.map((error) => error.message)).toEqual([
      'invalid metadata of tool "reset" (1 issue):\n  _meta["mcp-gate"].groups: Invalid input: expected array, received string',
    ]);
  });
});

describe('parseRegisteredAnnotation', () => {
  it('turns a getter that throws into invalid metadata of that primitive, never another error', () => {
    const throwing = Object.defineProperty({}, 'groups', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(() => parseRegisteredAnnotation(throwing, 'tool "t"', '_meta["mcp-gate"]')).toThrow(
      new MetadataError('tool "t"', [{ code: 'invalid_metadata', path: '_meta["mcp-gate"]', message: 'cannot be read: reading it threw' }]),
    );
    const catalog = buildCatalog([{ kind: 'tool', key: 't', name: 't', meta: { 'mcp-gate': throwing } }], options);
    expect(catalog.get('tool', 't')!.metadataError).toBeInstanceOf(MetadataError);
  });

  it('reads a hidden (non-enumerable) field as the schema does', () => {
    const hidden = Object.defineProperty({}, 'groups', { value: 'admin', enumerable: false });
    expect(() => parseRegisteredAnnotation(hidden, 'tool "t"', '_meta["mcp-gate"]')).toThrow(MetadataError);
  });
});

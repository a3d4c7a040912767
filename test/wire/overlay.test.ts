import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { MetadataError } from '../../src/core/errors.js';
import { compileOverlay } from '../../src/wire/overlay.js';
import { overlaySchemaPath, overlaySchemaText } from '../../scripts/write-overlay-schema.js';

const fixtures = ['test/proxy/fixtures/everything.overlay.json', 'test/proxy/fixtures/recording.overlay.json'];
const readFixture = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as unknown;

describe('compileOverlay', () => {
  it('annotates by glob over names (URIs for resources), later keys winning field by field', () => {
    const overlay = compileOverlay({
      metadata: {
        'tool:admin-*': { groups: ['admin'], tags: ['a'] },
        'tool:admin-drop': { groups: ['dba'] },
        'resource:file:///srv/**': { endpoints: ['/mcp/admin'] },
        'template:rows': { groups: ['rows'] },
      },
    });
    expect(overlay.annotationFor('tool', 'admin-list')).toEqual({ groups: ['admin'], tags: ['a'] });
    expect(overlay.annotationFor('tool', 'admin-drop')).toEqual({ groups: ['dba'], tags: ['a'] });
    expect(overlay.annotationFor('prompt', 'admin-list')).toBeUndefined();
    expect(overlay.annotationFor('resource', 'file:///srv/a/b.txt')).toEqual({ endpoints: ['/mcp/admin'] });
    expect(overlay.annotationFor('resourceTemplate', 'rows')).toEqual({ groups: ['rows'] });
    expect(overlay.unmatchedKeys([{ kind: 'tool', key: 'admin-list' }])).toEqual(['tool:admin-drop', 'resource:file:///srv/**', 'template:rows']);
  });

  it('rejects a bad key or annotation with a MetadataError naming the file and the path', () => {
    let caught: unknown;
    try {
      compileOverlay({ metadata: { 'tools:x': {}, 'tool:y': { groups: 'admin' } } }, 'overlay.json');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MetadataError);
    expect((caught as MetadataError).issues.map((issue) => `${issue.path}: ${issue.message}`)).toEqual([
      'metadata["tools:x"]: key must be "tool:GLOB", "prompt:GLOB", "resource:GLOB" (over URIs) or "template:GLOB"',
      'metadata["tool:y"].groups: Invalid input: expected array, received string',
    ]);
  });
});

describe('docs/overlay.schema.json', () => {
  it('equals createOverlayJsonSchema() (regenerate with: npx tsx scripts/write-overlay-schema.ts)', () => {
    expect(readFileSync(overlaySchemaPath, 'utf8')).toBe(overlaySchemaText());
  });

  it('accepts the overlays the tests use and rejects what compileOverlay rejects', () => {
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(readFileSync(overlaySchemaPath, 'utf8')) as object);
    for (const path of fixtures) {
      expect(validate(readFixture(path)), path).toBe(true);
      expect(() => compileOverlay(readFixture(path))).not.toThrow();
    }
    expect(validate({ metadata: { 'tools:x': {} } })).toBe(false);
    expect(validate({ metadata: { 'tool:x': { group: ['a'] } } })).toBe(false);
  });
});

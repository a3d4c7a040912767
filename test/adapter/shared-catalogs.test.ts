import { describe, expect, it } from 'vitest';
import type { PrimitiveSource } from '../../src/adapter/catalog.js';
import { SharedCatalogs } from '../../src/adapter/shared-catalogs.js';

const settings = { annotations: new Map(), versionSeparator: '__' };
const tool = (meta: unknown, enabled = true): PrimitiveSource => ({ kind: 'tool', key: 'reset', name: 'reset', meta, enabled });

describe('SharedCatalogs', () => {
  it('shares the metadata of equal registrations, in a catalog object of each own', () => {
    const catalogs = new SharedCatalogs(settings);
    const first = catalogs.catalog([tool({ 'mcp-gate': { groups: ['admin'] } })], 1);
    const second = catalogs.catalog([tool({ 'mcp-gate': { groups: ['admin'] } })], 7);
    expect(second).not.toBe(first);
    expect(second.version).toBe(7);
    expect(second.get('tool', 'reset')).toBe(first.get('tool', 'reset'));
  });

  it('reads an annotation changed in place, a changed enabled flag and an invalid annotation afresh', () => {
    const catalogs = new SharedCatalogs(settings);
    const annotation: { groups: unknown } = { groups: ['admin'] };
    const meta = { 'mcp-gate': annotation };
    expect(catalogs.catalog([tool(meta)], 1).get('tool', 'reset')!.metadata.groups).toEqual(['admin']);
    annotation.groups = ['public'];
    expect(catalogs.catalog([tool(meta)], 2).get('tool', 'reset')!.metadata.groups).toEqual(['public']);
    expect(catalogs.catalog([tool(meta, false)], 3).get('tool', 'reset')!.enabled).toBe(false);
    annotation.groups = 'admin';
    expect(catalogs.catalog([tool(meta)], 4).errors).toHaveLength(1);
    expect(catalogs.catalog([tool(meta)], 5).errors).toHaveLength(1);
  });

  it('does not share annotations JSON would not keep exactly (getters, NaN, class instances)', () => {
    const catalogs = new SharedCatalogs(settings);
    let groups = ['admin'];
    const withGetter = {
      'mcp-gate': {
        get groups() {
          return groups;
        },
      },
    };
    expect(catalogs.catalog([tool(withGetter)], 1).get('tool', 'reset')!.metadata.groups).toEqual(['admin']);
    groups = ['public'];
    expect(catalogs.catalog([tool(withGetter)], 2).get('tool', 'reset')!.metadata.groups).toEqual(['public']);
    const nan = catalogs.catalog([tool({ 'mcp-gate': { version: Number.NaN } })], 3);
    expect(catalogs.catalog([tool({ 'mcp-gate': { version: null } })], 4).get('tool', 'reset')).not.toBe(nan.get('tool', 'reset'));
    const dated = catalogs.catalog([tool({ 'mcp-gate': { groups: [new Date(0)] } })], 5);
    expect(dated.errors).toHaveLength(1);
  });
});

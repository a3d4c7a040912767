import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../src/core/context.js';
import { PolicyOptionError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { buildCatalog, type PrimitiveSource } from '../../src/adapter/catalog.js';
import { changedLists } from '../../src/adapter/list-changes.js';
import { publicMeta, validateMetadataOption } from '../../src/adapter/metadata.js';
import { createPolicyView } from '../../src/adapter/policy-view.js';

const sources: PrimitiveSource[] = [
  { kind: 'tool', key: 'search__1.0.0', name: 'search__1.0.0', meta: { 'mcp-gate': { version: '1.0.0' } } },
  { kind: 'tool', key: 'other', name: 'other' },
  { kind: 'tool', key: 'search__2.0.0', name: 'search__2.0.0', meta: { 'mcp-gate': { version: '2.0.0', tags: ['canary'] } } },
  { kind: 'tool', key: 'broken', name: 'broken', meta: { 'mcp-gate': { groups: 'x' } } },
  { kind: 'resource', key: 'file:///a', name: 'a', uri: 'file:///a' },
];

function catalogOf(annotations = new Map()) {
  return buildCatalog(sources, { version: 1, annotations, versionSeparator: '__' });
}

const canaryForX = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary', effect: 'deny', appliesTo: { tags: ['canary'] }, when: { '!=': [{ var: 'request.headers.x' }, '1'] } }],
});

describe('buildCatalog', () => {
  it('groups versioned registrations under their public name, highest version first', () => {
    const catalog = catalogOf();
    expect(catalog.toolCandidates('search')!.map((entry) => entry.key)).toEqual(['search__2.0.0', 'search__1.0.0']);
    expect(catalog.get('tool', 'search__1.0.0')!.metadata.name).toBe('search');
    expect(catalog.get('resource', 'file:///a')!.metadata).toMatchObject({ name: 'a', uri: 'file:///a' });
  });

  it('records invalid annotations and hides those entries from everyone', () => {
    const catalog = catalogOf();
    expect(catalog.errors.map((error) => error.message)).toEqual([
      'invalid metadata of tool "broken" (1 issue):\n  _meta["mcp-gate"].groups: Invalid input: expected array, received string',
    ]);
    const view = createPolicyView(compilePolicy({ version: 1, default: 'allow', rules: [] }), 'deny');
    expect(view.isVisible(createRequestContext(), catalog.get('tool', 'broken')!)).toBe(false);
  });
});

describe('createPolicyView', () => {
  it('resolves one version per context and lists it at the first registration position', () => {
    const catalog = catalogOf();
    const view = createPolicyView(canaryForX, 'deny');
    const canary = createRequestContext({ request: { headers: { x: '1' } } });
    const regular = createRequestContext();
    const keys = (context: typeof canary) => view.visibleEntries(catalog, 'tool', context, view.cacheKey(catalog, context)).map((entry) => entry.key);
    expect(keys(canary)).toEqual(['search__2.0.0', 'other']);
    expect(keys(regular)).toEqual(['search__1.0.0', 'other']);
  });
});

describe('changedLists', () => {
  it('reports the lists whose visible entries differ for a context, including a version switch', () => {
    const catalog = catalogOf();
    const before = createPolicyView(compilePolicy({ version: 1, default: 'allow', rules: [] }), 'deny');
    const after = createPolicyView(canaryForX, 'deny');
    expect(changedLists(catalog, before, after, createRequestContext())).toEqual(['tools']);
    expect(changedLists(catalog, before, after, createRequestContext({ request: { headers: { x: '1' } } }))).toEqual([]);
  });
});

describe('publicMeta', () => {
  it('removes the gate annotation, keeps the rest, and drops an emptied _meta', () => {
    const other = { keep: 1 };
    expect(publicMeta(other, undefined)).toBe(other);
    expect(publicMeta({ 'mcp-gate': {}, keep: 1 }, undefined)).toEqual({ keep: 1 });
    expect(publicMeta({ 'mcp-gate': {} }, undefined)).toBeUndefined();
    expect(publicMeta(undefined, ['sampling'])).toEqual({ 'io.modelcontextprotocol/requiredCapabilities': ['sampling'] });
  });
});

describe('validateMetadataOption', () => {
  it('names the option when it is not an object', () => {
    expect(() => validateMetadataOption([])).toThrow('mcp-gate: option "metadata" must be an object keyed by "tool:NAME", "prompt:NAME", "resource:URI" or "template:NAME"');
    expect(() => validateMetadataOption([])).toThrow(PolicyOptionError);
  });
});

import { describe, expect, it } from 'vitest';
import type { PrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { MetadataError, PolicyError } from '../../../src/core/errors.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { createVisibilityFilter } from '../../../src/core/policy/visibility-filter.js';
import { context, tool } from './fixtures.js';

// Metadata a JS user writes by hand or reads from a JSON file: only the fields it needs. The
// policy accepts what the metadata schema accepts, with the optional fields defaulted, exactly
// as createPrimitiveMetadata would build it; what it cannot accept is a MetadataError naming the field.

const policy = compilePolicy({
  version: 1,
  default: 'allow',
  enforceRequirements: true,
  rules: [{ id: 'canary', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } }],
});
const plain = { kind: 'tool', name: 'deploy', groups: ['canary'] } as unknown as PrimitiveMetadata;
const canary = context({ request: { headers: { 'x-canary': '1' } } });
const stable = context();

describe('Policy (metadata not built by createPrimitiveMetadata)', () => {
  it('decides plain {kind, name, groups} metadata as it decides the same metadata built by createPrimitiveMetadata', () => {
    const built = tool('deploy', { groups: ['canary'] });
    for (const request of [canary, stable]) {
      expect(policy.evaluate(request, plain)).toBe(policy.evaluate(request, built));
      expect(policy.forContext(request)(plain)).toBe(policy.evaluate(request, built));
      expect(policy.explain(request, plain)).toEqual(policy.explain(request, built));
    }
    expect(policy.evaluate(canary, plain)).toBe(true);
    expect(policy.explain(stable, plain).message).toBe('denied by rule "canary"');
    expect(policy.readsFor([plain])).toEqual(policy.readsFor([built]));
    expect(policy.contextKeyFor([plain])(canary)).toBe(policy.contextKeyFor([built])(canary));
  });

  it('enforces requirements written as plain data (header names lower-cased as createPrimitiveMetadata does)', () => {
    const sampling = { kind: 'tool', name: 'summarize', requires: { capabilities: ['sampling'], headers: { 'X-Tier': 'gold' } } } as unknown as PrimitiveMetadata;
    const gold = context({ request: { headers: { 'x-tier': 'gold' } }, client: { capabilities: { sampling: {} } } });
    expect(policy.evaluate(gold, sampling)).toBe(true);
    expect(policy.explain(context({ client: { capabilities: {} } }), sampling).message).toBe('requires client capability "sampling"');
    expect(policy.readsFor([sampling])).toContain('request.headers.x-tier');
  });

  it('filters plain metadata through createVisibilityFilter', () => {
    const items = [plain, { kind: 'prompt', name: 'greet' } as unknown as PrimitiveMetadata];
    const filter = createVisibilityFilter(policy, items, (item) => item, { minItemsToCache: 0 });
    expect(filter.visible(stable).map((item) => item.name)).toEqual(['greet']);
    expect(filter.visible(canary).map((item) => item.name)).toEqual(['deploy', 'greet']);
  });

  it('hides metadata the schema rejects, tells onError with a MetadataError naming the field, and explains it without engine internals', () => {
    const errors: unknown[] = [];
    const watched = compilePolicy({ version: 1, default: 'allow', rules: [] }, { onError: (error) => void errors.push(error) });
    const nameless = { kind: 'tool', groups: ['canary'] } as unknown as PrimitiveMetadata;
    expect(watched.evaluate(canary, nameless)).toBe(false);
    expect(watched.forContext(canary)(nameless)).toBe(false);
    const decision = watched.explain(canary, nameless);
    expect(decision).toMatchObject({ allowed: false, reason: 'error' });
    expect(decision.message).toBe('invalid metadata (hidden, fail closed): name: Invalid input: expected string, received undefined');
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error).toBeInstanceOf(MetadataError);
      expect((error as MetadataError).issues).toEqual([{ code: 'invalid_metadata', path: 'name', message: 'Invalid input: expected string, received undefined' }]);
    }
  });

  it('names the bad field of metadata it is given to key or filter by, with a MetadataError', () => {
    const badGroups = { kind: 'tool', name: 'deploy', groups: 'canary' } as unknown as PrimitiveMetadata;
    expect(() => policy.readsFor([badGroups])).toThrow(MetadataError);
    expect(() => policy.contextKeyFor([badGroups])).toThrow('invalid metadata of tool "deploy" (1 issue):\n  groups: Invalid input: expected array, received string');
    expect(() => createVisibilityFilter(policy, [badGroups], (item) => item)).toThrow(PolicyError);
    expect(() => policy.readsFor([null as unknown as PrimitiveMetadata])).toThrow(
      'invalid metadata of a primitive (1 issue):\n  Invalid input: expected object, received null',
    );
  });
});

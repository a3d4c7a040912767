import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { isPolicy } from '../../src/adapter/policy-input.js';

describe('isPolicy', () => {
  it('asks for the members the adapters call: contextKeyFor, not contextKey', () => {
    const compiled = compilePolicy({ version: 1, default: 'allow' });
    expect(isPolicy(compiled)).toBe(true);
    const called = {
      revision: compiled.revision,
      evaluate: compiled.evaluate,
      forContext: compiled.forContext,
      explain: compiled.explain,
      readsFor: compiled.readsFor,
      contextKeyFor: compiled.contextKeyFor,
    };
    expect(isPolicy(called)).toBe(true);
    const { contextKeyFor: _contextKeyFor, ...withoutContextKeyFor } = called;
    expect(isPolicy({ ...withoutContextKeyFor, contextKey: () => '' })).toBe(false);
  });
});

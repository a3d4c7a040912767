import { describe, expect, it } from 'vitest';
import { createPrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { checkPolicy } from '../../../src/core/analysis/check-policy.js';
import { diffPolicies } from '../../../src/core/analysis/diff-policies.js';

// `mcp-gate check` and `diff --exhaustive` on a policy that reads feature flags: a flag is
// resolved per request from outside the contexts the analysis enumerates, so its reads are
// reported as not modelled (never a wrong proof), and the analysis runs on.

const flagged = {
  version: 1,
  default: 'allow',
  flags: { 'new-search': { default: false }, other: { default: 'x' } },
  rules: [
    { id: 'new-search-off', effect: 'deny', appliesTo: { names: ['new-search'] }, when: { '!': { var: 'flags.new-search' } } },
    { id: 'other', effect: 'deny', appliesTo: { names: ['other'] }, when: { '==': [{ var: 'flags.other' }, 'y'] } },
  ],
};
const primitives = ['new-search', 'search'].map((name) => createPrimitiveMetadata('tool', name));

describe('analysis of policies that read flags', () => {
  it('check reports the flag reads as not modelled, also under strict', () => {
    for (const strict of [false, true]) {
      const check = checkPolicy(flagged, primitives, { compile: { strict } });
      expect(check.lintUnknown).toEqual(['tool new-search: rule "new-search-off": reads feature flag flags.new-search, which the analysis does not partition']);
    }
  });

  it('diff --exhaustive says it is not exact when a side reads flags', () => {
    const diff = diffPolicies({ version: 1, default: 'allow', rules: [] }, flagged, primitives);
    expect(diff.exact).toBe(false);
    expect(diff.unknown.join('\n')).toContain('reads feature flag flags.new-search');
  });
});

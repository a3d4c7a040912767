import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { countReads } from './counting.js';

// Documents built in code can share one object in many places (a DAG). JSON cannot, so every
// copy of a condition costs its bytes there; in code, one large condition referenced by
// thousands of rules costs nothing to build and — measured before these tests — 5.5 s to compile
// for 1,000 rules × 3,000 nodes, and for 20,000 rules (twice the maximum) a heap out of memory
// after ~90 s: a crash from a few kilobytes of input.

function readsToCompile(document: unknown): number {
  const counted = countReads(document);
  try {
    compilePolicy(counted.value);
  } catch {
    // Rejected or not, only the work counts here.
  }
  return counted.reads();
}

const condition = (size: number) => ({ or: Array.from({ length: size }, (_, index) => ({ '==': [{ var: 'client.name' }, `client-${index}`] })) });
const sharing = (rules: number, when: unknown) => ({
  version: 1,
  default: 'deny',
  rules: Array.from({ length: rules }, (_, index) => ({ id: `r${index}`, effect: 'allow', when })),
});

describe('compilePolicy (shared objects, hostile)', () => {
  // Known bug (src/core/policy/compile-policy.ts compilePolicy → salvageRules, since 23c9f69): when
  // the document fails validation, every rule's condition is compiled to report its issues — all
  // of them, also past the 10,000-rule maximum the schema enforces — so the maximum no longer
  // bounds the compile work (20,000 rules cost twice 10,001).
  it('compiles no conditions past the 10,000-rule maximum', () => {
    const when = condition(2);
    const atMaximum = readsToCompile(sharing(10_001, when));
    const twiceTheMaximum = readsToCompile(sharing(20_000, when));
    expect(twiceTheMaximum).toBeLessThan(atMaximum * 1.25);
  });

  // Known bug (src/core/logic/compile.ts walk; src/core/policy/compile-policy.ts compileRules): the
  // node limit is per rule and a shared condition is walked again for every rule that holds it,
  // so work multiplies with sharing: 200 rules sharing one 1,000-node condition cost 200× one rule.
  it('compiles a condition shared by many rules at a cost bounded by the document, not by the sharing', () => {
    const when = condition(250);
    const once = readsToCompile(sharing(1, when));
    const shared = readsToCompile(sharing(200, when));
    expect(shared).toBeLessThan(once * 10);
  });

  // Known bug (src/core/policy/schema.ts toPolicyIssues): zod's "Unrecognized key" messages name
  // the key in full — paths are abbreviated since 0216907, messages are not — so 200 rules sharing
  // one object with a 100 kB unknown key give a 20 MB error (a 1 MB key: 200 MB, measured).
  it('keeps the error small when many rules share an object with a long unknown key', () => {
    const rule = { id: 'r', effect: 'allow', ['k'.repeat(100_000)]: 1 };
    let message = '';
    try {
      compilePolicy({ version: 1, default: 'deny', rules: Array.from({ length: 200 }, () => rule) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('Unrecognized key');
    expect(message.length).toBeLessThan(200 * 1_000);
  });
});

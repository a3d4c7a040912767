import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffPolicies, type PolicyDiff } from '../../src/core/analysis/diff-policies.js';
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { policyDocuments } from '../../src/testing/policies.js';
import { conditionsWithNumbers, contexts, domainSize, numericConditions, primitivePool, readPaths } from './exhaustive-domain.js';
import { propertyParameters } from './seed.js';

// diff --exhaustive against brute force. On random policy pairs — unrelated ones, and a policy
// with one edit (a rule dropped, an effect flipped, a condition replaced, the default flipped) —
// every context of a small finite domain is decided by both compiled policies:
// - every reported class is real: both policies, on its context, differ by exactly its gains
//   and losses among the group's primitives, and by nothing else unless another group has no
//   unchanged caller;
// - nothing is missed: a context's change, cut by group, is one reported class of each group
//   (or empty), and no primitive outside the groups changes;
// - an inexact answer gives its reason, and only for what the analysis does not model.

const maxBruteForce = 3_000;

const edited = (document: PolicyDocument): fc.Arbitrary<PolicyDocument> =>
  fc.tuple(fc.constantFrom('drop', 'flip-effect', 'replace-when', 'flip-default', 'toggle-requirements'), fc.nat(), conditionsWithNumbers()).map(([edit, at, when]) => {
    const rules = [...(document.rules ?? [])];
    const index = rules.length === 0 ? -1 : at % rules.length;
    if (edit === 'flip-default' || index < 0) return { ...document, default: document.default === 'allow' ? 'deny' : 'allow' };
    if (edit === 'toggle-requirements') return { ...document, enforceRequirements: document.enforceRequirements === false };
    if (edit === 'drop') rules.splice(index, 1);
    else if (edit === 'flip-effect') rules[index] = { ...rules[index]!, effect: rules[index]!.effect === 'allow' ? 'deny' : 'allow' };
    else rules[index] = { ...rules[index]!, when };
    return { ...document, rules };
  });

const documents = policyDocuments({ maxRules: 3, conditions: conditionsWithNumbers() });
const pairs = fc.oneof(
  fc.tuple(documents, documents),
  documents.chain((document) => fc.tuple(fc.constant(document), edited(document))),
);

function changeOf(before: ReturnType<typeof compilePolicy>, after: ReturnType<typeof compilePolicy>, context: RequestContext, primitive: PrimitiveMetadata): '+' | '-' | '' {
  const was = before.evaluate(context, primitive);
  const is = after.evaluate(context, primitive);
  return was === is ? '' : is ? '+' : '-';
}

/** A change as text: `+name -name` in pool order, restricted to `among`. */
function signature(changes: ReadonlyMap<PrimitiveMetadata, string>, among: ReadonlySet<PrimitiveMetadata>): string {
  return primitivePool
    .filter((primitive) => among.has(primitive) && (changes.get(primitive) ?? '') !== '')
    .map((primitive) => `${changes.get(primitive)}${primitive.name}`)
    .join(' ');
}

function withMethod(context: RequestContext, primitive: PrimitiveMetadata): RequestContext {
  const method = { tool: 'tools/list', prompt: 'prompts/list', resource: 'resources/list', resourceTemplate: 'resources/templates/list' }[primitive.kind];
  return createRequestContext({ ...context, request: { ...context.request, method } } as never);
}

interface Compared {
  readonly exact: boolean;
  readonly changed: boolean;
  readonly classes: number;
  /** Every context of the domain was decided (not an even sample of it). */
  readonly whole: boolean;
}

/** Runs diffPolicies and checks its answer on the domain; throws what it finds wrong. */
function compareWithBruteForce(oldDocument: PolicyDocument, newDocument: PolicyDocument, primitives: readonly PrimitiveMetadata[]): Compared {
  const result: PolicyDiff = diffPolicies(oldDocument, newDocument, primitives);
  const before = compilePolicy(oldDocument);
  const after = compilePolicy(newDocument);
  const groupOf = new Map<PrimitiveMetadata, number>();
  const reported = result.groups.map((group, index) => {
    const members = new Set(group.classes.flatMap((item) => [...item.gains, ...item.loses]));
    for (const member of members) groupOf.set(member, index);
    return { members, signatures: new Set<string>() };
  });
  // Every class is real.
  let classes = 0;
  result.groups.forEach((group, index) => {
    for (const item of group.classes) {
      classes++;
      const context = createRequestContext(item.context);
      const changes = new Map(primitives.map((primitive) => [primitive, changeOf(before, after, withMethod(context, primitive), primitive)]));
      const expected = signature(new Map([...item.gains.map((p) => [p, '+'] as const), ...item.loses.map((p) => [p, '-'] as const)]), reported[index]!.members);
      expect(expected).not.toBe('');
      expect(signature(changes, reported[index]!.members)).toBe(expected);
      reported[index]!.signatures.add(expected);
    }
  });
  if (!result.exact) {
    expect(result.unknown.length).toBeGreaterThan(0);
    expect(JSON.stringify([oldDocument, newDocument])).toContain('fractional');
    return { exact: false, changed: result.groups.length > 0, classes, whole: false };
  }
  // Nothing is missed: every context of the domain, or an even sample of it when it is large.
  const paths = readPaths([oldDocument, newDocument]);
  const size = domainSize(paths);
  // No arbitrary reads request.method: one context stands for every kind's list.
  for (const context of contexts(paths, Math.ceil(size / maxBruteForce))) {
    const changes = new Map(primitives.map((primitive) => [primitive, changeOf(before, after, context, primitive)]));
    for (const primitive of primitives) {
      if (changes.get(primitive) !== '' && !groupOf.has(primitive))
        throw new Error(`${primitive.name} changes (${changes.get(primitive)}) for ${JSON.stringify(context)}, in no reported group`);
    }
    reported.forEach(({ members, signatures }) => {
      const cut = signature(changes, members);
      if (cut !== '' && !signatures.has(cut)) throw new Error(`${JSON.stringify(context)} changes by ${cut}, which no class of its group (${[...signatures].join(' | ')}) is`);
    });
  }
  return { exact: true, changed: result.groups.length > 0, classes, whole: size <= maxBruteForce };
}

describe('diffPolicies against brute force', () => {
  it('reports only real classes, misses none, and is inexact only for what it does not model', () => {
    let changed = 0;
    let unchanged = 0;
    let inexact = 0;
    let bruteForced = 0;
    let classes = 0;
    let numeric = 0;
    fc.assert(
      fc.property(pairs, fc.subarray(primitivePool, { minLength: 1, maxLength: 4 }), ([oldDocument, newDocument], primitives) => {
        const compared = compareWithBruteForce(oldDocument, newDocument, primitives);
        classes += compared.classes;
        if (!compared.exact) {
          inexact++;
          return;
        }
        if (compared.changed) changed++;
        else unchanged++;
        if (compared.whole) bruteForced++;
        if (/"[<>]=?"/.test(JSON.stringify([oldDocument, newDocument]))) numeric++;
      }),
      propertyParameters(80),
    );
    // The arbitraries exercise every answer.
    expect(changed).toBeGreaterThan(25);
    expect(unchanged).toBeGreaterThan(3);
    expect(inexact).toBeGreaterThan(0);
    expect(bruteForced).toBeGreaterThan(15);
    // Numeric thresholds are decided exactly, not left unknown.
    expect(numeric).toBeGreaterThan(25);
    if (process.env.CHECK_COUNTS) console.log({ changed, unchanged, inexact, bruteForced, classes, numeric });
  }, 120_000);

  it('decides numeric thresholds exactly: every context of a header and a claim, on policies of thresholds only', () => {
    const thresholds = fc.letrec<{ condition: unknown }>((tie) => ({
      condition: fc.oneof(
        { depthSize: 'small', maxDepth: 2 },
        numericConditions(),
        fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })),
        fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ or: items })),
        tie('condition').map((inner) => ({ '!': inner })),
      ),
    })).condition;
    // Every rule applies to every primitive, so thresholds of different rules meet on one path.
    const numericDocuments = policyDocuments({ maxRules: 3, conditions: thresholds }).map((document) => ({
      ...document,
      rules: (document.rules ?? []).map(({ appliesTo: _appliesTo, ...rule }) => rule),
    }));
    let changed = 0;
    fc.assert(
      fc.property(numericDocuments, numericDocuments, fc.subarray(primitivePool, { minLength: 1, maxLength: 3 }), (oldDocument, newDocument, primitives) => {
        const compared = compareWithBruteForce(oldDocument, newDocument, primitives);
        expect(compared.exact).toBe(true);
        if (compared.changed) changed++;
      }),
      propertyParameters(80),
    );
    expect(changed).toBeGreaterThan(50);
  }, 120_000);
});

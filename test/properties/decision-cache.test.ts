import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/core/context.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createVisibilityFilter } from '../../src/core/policy/visibility-filter.js';
import { policyDocument, primitiveMetadata, requestContext } from './policy-arbitraries.js';
import { propertyParameters } from './seed.js';

describe('decision cache', () => {
  it('never lets two contexts that differ in anything the policy reads share an answer', () => {
    fc.assert(
      fc.property(policyDocument, fc.array(primitiveMetadata, { minLength: 1, maxLength: 8 }), requestContext, requestContext, (document, primitives, a, b) => {
        const policy = compilePolicy(document);
        const key = policy.contextKeyFor(primitives);
        if (key(a) !== key(b)) return;
        for (const primitive of primitives) {
          expect(policy.evaluate(b, primitive)).toBe(policy.evaluate(a, primitive));
        }
      }),
      propertyParameters(800),
    );
  });

  it('returns from the cache exactly what evaluating every primitive returns', () => {
    fc.assert(
      fc.property(
        policyDocument,
        fc.array(primitiveMetadata, { minLength: 1, maxLength: 12 }),
        fc.array(requestContext, { minLength: 1, maxLength: 30 }),
        (document, primitives, contexts) => {
          const policy = compilePolicy(document);
          const cached = createVisibilityFilter(policy, primitives, (item) => item, { minItemsToCache: 0, cacheSize: 4 });
          for (const context of contexts) {
            expect(cached.visible(context)).toEqual(primitives.filter((primitive) => policy.evaluate(context, primitive)));
          }
        },
      ),
      propertyParameters(300),
    );
  });

  it('gives one long-lived policy the answers a fresh policy gives (per-request memos never go stale)', () => {
    fc.assert(
      fc.property(policyDocument, fc.array(fc.tuple(requestContext, primitiveMetadata), { minLength: 1, maxLength: 40 }), (document, calls) => {
        const policy = compilePolicy(document);
        for (const [context, primitive] of calls) {
          expect(policy.evaluate(context, primitive)).toBe(compilePolicy(document).evaluate(context, primitive));
        }
      }),
      propertyParameters(200),
    );
  });

  it('answers a request seen before exactly as a request seen for the first time (per-context memos)', () => {
    // A copy of the context's fields carries no memo slot, so it is always decided from scratch.
    const cold = (context: RequestContext): RequestContext => ({ request: context.request, client: context.client, auth: context.auth });
    fc.assert(
      fc.property(
        policyDocument,
        policyDocument,
        fc.array(requestContext, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.boolean(), fc.nat(), primitiveMetadata), { minLength: 1, maxLength: 40 }),
        (first, second, contexts, calls) => {
          // Two policies take turns on the same few contexts, so memos are reused and replaced.
          const policies = [compilePolicy(first), compilePolicy(second)] as const;
          for (const [useSecond, contextIndex, primitive] of calls) {
            const policy = policies[useSecond ? 1 : 0];
            const context = contexts[contextIndex % contexts.length]!;
            expect(policy.evaluate(context, primitive)).toBe(policy.evaluate(cold(context), primitive));
          }
        },
      ),
      propertyParameters(300),
    );
  });

  it('decides a list through forContext exactly as evaluate decides each primitive', () => {
    fc.assert(
      fc.property(
        policyDocument,
        fc.array(primitiveMetadata, { minLength: 1, maxLength: 12 }),
        fc.array(requestContext, { minLength: 1, maxLength: 6 }),
        (document, primitives, contexts) => {
          const policy = compilePolicy(document);
          for (const context of contexts) {
            const decide = policy.forContext(context);
            expect(primitives.map((primitive) => decide(primitive))).toEqual(primitives.map((primitive) => compilePolicy(document).evaluate(context, primitive)));
          }
        },
      ),
      propertyParameters(300),
    );
  });

  it('agrees with explain on every decision', () => {
    fc.assert(
      fc.property(policyDocument, primitiveMetadata, requestContext, (document, primitive, context) => {
        const policy = compilePolicy(document);
        expect(policy.explain(context, primitive).allowed).toBe(policy.evaluate(context, primitive));
      }),
      propertyParameters(1000),
    );
  });
});

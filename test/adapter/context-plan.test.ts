import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planReads } from '../../src/adapter/context-plan.js';
import { createPlannedRequestContext, createRequestContext, wholeContext, wholeContextOf, type RequestContextInput } from '../../src/core/context.js';
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { callers, policyDocuments, primitiveMetadata, type Caller } from '../../src/testing/index.js';

describe('planReads', () => {
  it('keeps only the headers read, and nothing a policy does not read', () => {
    expect(planReads(['client.name', 'request.headers.x-canary'])).toEqual({ headers: ['x-canary'], capabilities: false, scopes: false, claims: false });
  });

  it('keeps a header and the header named by the whole sub-path when a rule reads below a header', () => {
    expect(planReads(['request.headers.x-team.length']).headers).toEqual(['x-team', 'x-team.length']);
  });

  it('keeps a whole part when a rule reads it, or a parent of it', () => {
    expect(planReads(['request']).headers).toBe('all');
    expect(planReads(['request.headers']).headers).toBe('all');
    expect(planReads(['client'])).toMatchObject({ capabilities: true, scopes: false });
    expect(planReads(['client.capabilities.elicitation.url'])).toMatchObject({ capabilities: true });
    expect(planReads(['auth'])).toMatchObject({ scopes: true, claims: true, capabilities: false });
    expect(planReads(['auth.claims.org.id'])).toMatchObject({ claims: true, scopes: false });
  });

  it('keeps everything for a computed path, or when every part is read', () => {
    expect(planReads(['*'])).toBe(wholeContext);
    expect(planReads(['request', 'client', 'auth'])).toBe(wholeContext);
  });
});

/** What an adapter hands the core for this caller (header names lower-cased, as Node and fetch deliver them). */
function inputOf(caller: Caller): RequestContextInput {
  const headers = Object.fromEntries(
    Object.entries({ ...caller.headers, accept: 'application/json', 'user-agent': 'node' }).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return {
    request: { method: 'tools/call', headers, endpoint: caller.endpoint, protocolVersion: '2025-06-18' },
    client: { name: caller.client.name, version: caller.client.version, capabilities: caller.client.capabilities },
    auth: { clientId: caller.auth?.clientId, subject: caller.auth?.claims['sub'] as string | undefined, scopes: caller.auth?.scopes ?? [], claims: caller.auth?.claims ?? {} },
  };
}

// Rules reading what the random documents may not: sub-paths of headers, whole parts, claims,
// scopes, computed paths, `missing`.
const readingPolicies: PolicyDocument[] = [
  { version: 1, default: 'allow', rules: [{ id: 'short-team', effect: 'deny', when: { '<': [{ var: 'request.headers.x-canary.length' }, 2] } }] },
  { version: 1, default: 'deny', rules: [{ id: 'scoped', effect: 'allow', when: { in: ['tools:admin', { var: 'auth.scopes' }] } }] },
  { version: 1, default: 'allow', rules: [{ id: 'subject', effect: 'deny', when: { '==': [{ var: 'auth.claims.sub' }, 'user-2'] } }] },
  { version: 1, default: 'allow', rules: [{ id: 'computed', effect: 'deny', when: { '==': [{ var: { cat: ['request.headers.', 'x-canary'] } }, '1'] } }] },
  { version: 1, default: 'allow', rules: [{ id: 'missing', effect: 'deny', when: { missing: ['request.headers.x-role', 'client.capabilities.sampling'] } }] },
  { version: 1, default: 'allow', rules: [{ id: 'whole', effect: 'deny', when: { '==': [{ var: 'client' }, null] } }] },
];

describe('contexts built for a plan (property)', () => {
  it('decide, explain and key every primitive exactly as the whole context does', () => {
    const documents = fc.oneof(policyDocuments(), fc.constantFrom(...readingPolicies));
    fc.assert(
      fc.property(documents, fc.array(primitiveMetadata(), { minLength: 1, maxLength: 6 }), callers(), (document, primitives: PrimitiveMetadata[], caller) => {
        const policy = compilePolicy(document);
        const input = inputOf(caller);
        const whole = createRequestContext(input);
        const planned = createPlannedRequestContext(input, planReads(policy.readsFor(primitives)));
        const keyOf = policy.contextKeyFor(primitives);
        expect(keyOf(planned)).toBe(keyOf(whole));
        for (const primitive of primitives) {
          expect(policy.evaluate(planned, primitive)).toBe(policy.evaluate(whole, primitive));
          expect(policy.explain(planned, primitive)).toEqual(policy.explain(whole, primitive));
        }
        expect(wholeContextOf(planned)).toEqual(whole);
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });

  it('copies none of the headers, scopes or claims nobody reads', () => {
    const input: RequestContextInput = {
      request: { headers: { 'x-canary': '1', accept: 'a' } },
      client: { capabilities: { sampling: {} } },
      auth: { scopes: ['s'], claims: { org: 'acme' } },
    };
    const planned = createPlannedRequestContext(input, planReads(['request.headers.x-canary']));
    expect(planned.request.headers).toEqual({ 'x-canary': '1' });
    expect(planned.auth).toMatchObject({ scopes: [], claims: {} });
    // Unread capabilities still say that some were declared (onMissingCapabilities depends on it).
    expect(planned.client.capabilities).toEqual({});
    expect(createPlannedRequestContext({}, planReads([])).client.capabilities).toBeUndefined();
  });
});

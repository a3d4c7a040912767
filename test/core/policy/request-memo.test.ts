import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/core/context.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { CapabilityMemo, FrozenRequestContext, newMemoOwner, RequestMemo } from '../../../src/core/request-memo.js';
import { context, tool } from './fixtures.js';

// A policy remembers, in a hidden slot of each context built by createRequestContext, the values
// of conditions that read only the request and which capability sets the client declared.

function headerRule(id: string, header: string, value: string) {
  return { id, effect: 'allow' as const, when: { '===': [{ var: `request.headers.${header}` }, value] } };
}

describe('per-request memo', () => {
  it('keeps each policy’s answers apart on a shared context', () => {
    // Both conditions sit in memo slot 0 of their policy and have opposite values for this context.
    const onlyCanary = compilePolicy({ version: 1, default: 'deny', rules: [headerRule('canary', 'x-canary', '1')] });
    const onlyStable = compilePolicy({ version: 1, default: 'deny', rules: [headerRule('stable', 'x-canary', '0')] });
    const request = context({ request: { headers: { 'x-canary': '1' } } });
    const search = tool('search');
    for (let round = 0; round < 3; round++) {
      expect(onlyCanary.evaluate(request, search)).toBe(true);
      expect(onlyStable.evaluate(request, search)).toBe(false);
      expect(onlyStable.forContext(request)(search)).toBe(false);
      expect(onlyCanary.forContext(request)(search)).toBe(true);
    }
  });

  it('remembers nothing about a hand-made context, which may change between calls', () => {
    const policy = compilePolicy({ version: 1, default: 'deny', rules: [headerRule('canary', 'x-canary', '1')] });
    const headers: Record<string, string> = { 'x-canary': '1' };
    const handMade: RequestContext = {
      request: { method: 'tools/call', headers, endpoint: '/mcp' },
      client: { capabilities: { sampling: {} } },
      auth: { scopes: [], claims: {} },
    };
    const needsSampling = tool('summarize', { requires: { capabilities: ['sampling'] } });
    expect(policy.evaluate(handMade, tool('search'))).toBe(true);
    headers['x-canary'] = '0';
    expect(policy.evaluate(handMade, tool('search'))).toBe(false);

    const open = compilePolicy({ version: 1, default: 'allow', rules: [] });
    expect(open.evaluate(handMade, needsSampling)).toBe(true);
    (handMade as { client: RequestContext['client'] }).client = { capabilities: {} };
    expect(open.evaluate(handMade, needsSampling)).toBe(false);
  });

  it('never throws for a context that is not an object: every decision fails closed', () => {
    const policy = compilePolicy({ version: 1, default: 'allow', rules: [headerRule('canary', 'x-canary', '1')] });
    for (const notAContext of [null, undefined, 42, 'context']) {
      expect(policy.evaluate(notAContext as never, tool('search'))).toBe(false);
      expect(policy.forContext(notAContext as never)(tool('search'))).toBe(false);
    }
  });

  it('decides rules past the memo’s bit field (more than 31 request-only conditions)', () => {
    // 40 allow rules, each on its own header value; only the last one matches.
    const rules = Array.from({ length: 40 }, (_, index) => headerRule(`rule-${index}`, 'x-build', String(index)));
    const policy = compilePolicy({ version: 1, default: 'deny', rules });
    const search = tool('search');
    const matching = context({ request: { headers: { 'x-build': '39' } } });
    const other = context({ request: { headers: { 'x-build': '40' } } });
    for (let round = 0; round < 2; round++) {
      expect(policy.evaluate(matching, search)).toBe(true);
      expect(policy.evaluate(other, search)).toBe(false);
      expect(policy.forContext(matching)(search)).toBe(true);
    }
  });

  it('decides capability sets past the memo’s bit field (more than 31 distinct sets)', () => {
    const policy = compilePolicy({ version: 1, default: 'allow', rules: [] });
    // 40 distinct sets: extension i alone; the client declares the even ones.
    const tools = Array.from({ length: 40 }, (_, index) => tool(`t${index}`, { requires: { capabilities: [`extensions.io.example/x${index}`] } }));
    const extensions = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`io.example/x${index}`, index % 2 === 0 ? {} : null]));
    const request = context({ client: { capabilities: { extensions } } });
    for (let round = 0; round < 2; round++) {
      expect(tools.map((item) => policy.evaluate(request, item))).toEqual(tools.map((_, index) => index % 2 === 0));
    }
  });

  it('shares capability answers between requests of one session, never between policies', () => {
    // Both policies give their only capability set index 0; the session declares sampling only.
    const open = compilePolicy({ version: 1, default: 'allow', rules: [] });
    const alsoOpen = compilePolicy({ version: 1, default: 'allow', rules: [] });
    const sampling = tool('summarize', { requires: { capabilities: ['sampling'] } });
    const roots = tool('browse', { requires: { capabilities: ['roots'] } });
    const sessionCapabilities = { sampling: {} };
    const requests = [1, 2, 3].map(() => context({ client: { capabilities: sessionCapabilities } }));
    for (const request of requests) {
      expect(open.evaluate(request, sampling)).toBe(true);
      expect(alsoOpen.evaluate(request, roots)).toBe(false);
      expect(open.forContext(request)(sampling)).toBe(true);
    }
    // Another session (another object) with other capabilities learns its own answers.
    const other = context({ client: { capabilities: { roots: {} } } });
    expect(open.evaluate(other, sampling)).toBe(false);
    expect(alsoOpen.evaluate(other, roots)).toBe(true);
  });

  it('stores rule answers from a request’s second single decision on, and from a list’s first', () => {
    const policy = compilePolicy({ version: 1, default: 'deny', rules: [headerRule('canary', 'x-canary', '1')] });
    const request = context({ request: { headers: { 'x-canary': '1' } } });
    const memo = FrozenRequestContext.memoOf(request)!;
    expect(policy.evaluate(request, tool('search'))).toBe(true);
    expect(memo.rule(0)).toBeUndefined(); // a call decides once: nothing stored
    expect(policy.evaluate(request, tool('fetch'))).toBe(true);
    expect(memo.rule(0)).toBe(true);
    const listed = context({ request: { headers: { 'x-canary': '0' } } });
    expect(policy.forContext(listed)(tool('search'))).toBe(false);
    expect(FrozenRequestContext.memoOf(listed)!.rule(0)).toBe(false);
  });

  it('stores true, false and unknown per slot, in the bit field and past it', () => {
    const owner = newMemoOwner();
    const memo = new RequestMemo().for(owner);
    for (const slot of [0, 5, 30, 31, 32, 100]) {
      expect(memo.rule(slot)).toBeUndefined();
      memo.setRule(slot, slot % 2 === 0);
    }
    for (const slot of [0, 5, 30, 31, 32, 100]) expect(memo.rule(slot)).toBe(slot % 2 === 0);
    // Taken over by another policy: everything is unknown again, past the bit field too.
    expect([0, 5, 31, 100].map((slot) => memo.for(newMemoOwner()).rule(slot))).toEqual([undefined, undefined, undefined, undefined]);
    memo.for(owner);
    expect(memo.rule(1)).toBeUndefined();
    expect(memo.rule(33)).toBeUndefined();
    const withCapabilities = new RequestMemo(new CapabilityMemo()).for(owner);
    withCapabilities.setCapabilities(3, true);
    withCapabilities.setCapabilities(4, false);
    withCapabilities.setCapabilities(40, true);
    const answers = (memo: RequestMemo) => [3, 4, 5, 40].map((index) => memo.capabilities(index));
    expect(answers(withCapabilities)).toEqual([true, false, undefined, undefined]);
    // Another policy's view of the same capabilities starts empty.
    expect(answers(withCapabilities.for(newMemoOwner()))).toEqual([undefined, undefined, undefined, undefined]);
    // No capabilities declared: nothing to remember.
    const withoutCapabilities = new RequestMemo().for(owner);
    withoutCapabilities.setCapabilities(3, true);
    expect(withoutCapabilities.capabilities(3)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../src/core/context.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { RequestMemo } from '../../../src/core/request-memo.js';
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

  it('stores true, false and unknown per slot, in the bit field and past it', () => {
    const memo = new RequestMemo();
    for (const slot of [0, 5, 30, 31, 32, 100]) {
      expect(memo.rule(slot)).toBeUndefined();
      memo.setRule(slot, slot % 2 === 0);
    }
    for (const slot of [0, 5, 30, 31, 32, 100]) expect(memo.rule(slot)).toBe(slot % 2 === 0);
    expect(memo.rule(1)).toBeUndefined();
    expect(memo.rule(33)).toBeUndefined();
    memo.setCapabilities(3, true);
    memo.setCapabilities(4, false);
    memo.setCapabilities(40, true);
    expect([memo.capabilities(3), memo.capabilities(4), memo.capabilities(5), memo.capabilities(40)]).toEqual([true, false, undefined, undefined]);
  });
});

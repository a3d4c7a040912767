import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata } from '../../src/core/primitive-metadata.js';

describe('createRequestContext', () => {
  it('lower-cases header names and joins repeated headers, from strings and arrays', () => {
    const context = createRequestContext({
      request: { headers: { 'X-Canary': '1', 'x-canary': '0', accept: ['a', 'b'], 'x-none': undefined } },
    });
    expect(context.request.headers).toEqual({ 'x-canary': '1, 0', accept: 'a, b' });
  });

  it('ignores a __proto__ header and cannot be polluted through one', () => {
    const headers = JSON.parse('{"__proto__": "x", "constructor": "y"}') as Record<string, string>;
    const context = createRequestContext({ request: { headers } });
    expect(Object.keys(context.request.headers)).toEqual(['constructor']);
    expect(Object.getPrototypeOf(context.request.headers)).toBe(Object.prototype);
  });

  it('freezes the whole context and never shares or freezes the caller’s capability objects', () => {
    const capabilities = { sampling: {}, elicitation: { url: {} } };
    const context = createRequestContext({ client: { capabilities }, auth: { claims: { org: { id: 'acme' } } } });
    expect(Object.isFrozen(context.client.capabilities)).toBe(true);
    expect(Object.isFrozen((context.client.capabilities as { elicitation: object }).elicitation)).toBe(true);
    expect(Object.isFrozen((context.auth.claims as { org: object }).org)).toBe(true);
    expect(Object.isFrozen(capabilities)).toBe(false);
    expect(context.client.capabilities).toEqual(capabilities);
    expect(context.client.capabilities).not.toBe(capabilities);
  });

  it('treats capabilities of the wrong shape as declaring nothing, and absent ones as undeclared', () => {
    expect(createRequestContext({ client: { capabilities: [] as never } }).client.capabilities).toEqual({});
    expect(createRequestContext({ client: { capabilities: 'sampling' as never } }).client.capabilities).toEqual({});
    expect(createRequestContext({ client: { capabilities: null as never } }).client.capabilities).toEqual({});
    expect(createRequestContext({}).client.capabilities).toBeUndefined();
  });

  it('drops functions, class instances and cycles from copied data', () => {
    const cyclic: Record<string, unknown> = { ok: 1, fn: () => 1, date: new Date(0) };
    cyclic.self = cyclic;
    const context = createRequestContext({ auth: { claims: cyclic } });
    expect(context.auth.claims).toEqual({ ok: 1 });
  });
});

describe('createPrimitiveMetadata', () => {
  it('fills defaults, lower-cases required header names and freezes everything', () => {
    const metadata = createPrimitiveMetadata('tool', 'deploy', { groups: ['canary'], requires: { headers: { 'X-Canary': '1' } } });
    expect(metadata).toEqual({
      kind: 'tool',
      name: 'deploy',
      uri: undefined,
      uriTemplate: undefined,
      version: undefined,
      groups: ['canary'],
      tags: [],
      requires: { capabilities: [], headers: { 'x-canary': '1' } },
      endpoints: [],
    });
    expect(Object.isFrozen(metadata.requires.headers)).toBe(true);
  });
});

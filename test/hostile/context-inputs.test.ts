import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRequestContext, maxCopiedValues, type RequestContextInput } from '../../src/core/context.js';
import { PolicyError, RequestContextError } from '../../src/core/errors.js';

// Inputs a server's own code can hand createRequestContext (auth middleware claims, a custom
// transport's headers, capabilities built in code): each either yields a frozen context of plain
// data or throws a RequestContextError naming the part — never another error. What is dropped
// and what is refused follows docs/security.md: data that is not plain JSON is dropped; data
// that cannot be read at all is refused, since dropping it could drop what a deny rule tests.

const throwingGetter = () =>
  Object.defineProperty({ ok: 1 }, 'org', {
    enumerable: true,
    get() {
      throw new Error('claims service down');
    },
  });
const throwingProxy = (trap: 'ownKeys' | 'get' | 'getPrototypeOf' | 'getOwnPropertyDescriptor') =>
  new Proxy(
    { org: 'acme' },
    {
      [trap]: () => {
        throw new Error(`${trap} trap`);
      },
    },
  );
const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable({ org: 'acme' }, {});
  revoke();
  return proxy;
};
const marker = '\u0000hostile';
const lyingArray = () => new Proxy([], { get: (target, key) => (key === 'length' ? 2 ** 32 - 1 : Reflect.get(target, key)) });

type Hostile = [label: string, make: () => unknown];
const unreadable: Hostile[] = [
  ['a throwing getter', throwingGetter],
  ['a proxy whose ownKeys trap throws', () => throwingProxy('ownKeys')],
  ['a proxy whose get trap throws', () => throwingProxy('get')],
  ['a proxy whose getPrototypeOf trap throws', () => throwingProxy('getPrototypeOf')],
  ['a proxy whose getOwnPropertyDescriptor trap throws', () => throwingProxy('getOwnPropertyDescriptor')],
  ['a revoked proxy', revokedProxy],
];

const positions: [path: string, place: (value: unknown) => RequestContextInput][] = [
  ['client.capabilities', (value) => ({ client: { capabilities: value as Record<string, unknown> } })],
  ['auth.claims', (value) => ({ auth: { claims: value as Record<string, unknown> } })],
  ['request.headers', (value) => ({ request: { headers: value as Record<string, string> } })],
  ['auth.scopes', (value) => ({ auth: { scopes: value as string[] } })],
];

function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createRequestContext (hostile input)', () => {
  describe.each(positions)('at %s', (path, place) => {
    it.each(unreadable)('refuses %s with a RequestContextError naming the part', (_label, make) => {
      const error = thrownBy(() => createRequestContext(place(make())));
      // Headers and scopes read no nested values: a throwing getter there is one level down, or not read at all.
      if (error === undefined) return expect(['request.headers', 'auth.scopes']).toContain(path);
      expect(error).toBeInstanceOf(RequestContextError);
      expect((error as RequestContextError).path.startsWith(path)).toBe(true);
      expect((error as Error).message).toMatch(/^invalid request context: \S+ could not be read$/);
    });
  });

  it('names the nested key whose getter threw', () => {
    const error = thrownBy(() => createRequestContext({ auth: { claims: { team: [{ id: 1 }, throwingGetter()] } } }));
    expect(error).toBeInstanceOf(RequestContextError);
    expect((error as RequestContextError).path).toBe('auth.claims.team[1].org');
    expect((error as Error).cause).toEqual(new Error('claims service down'));
  });

  it('refuses a throwing input object and throwing scalar fields', () => {
    const input = new Proxy(
      {},
      {
        get: () => {
          throw new Error('input trap');
        },
      },
    );
    expect(thrownBy(() => createRequestContext(input))).toBeInstanceOf(RequestContextError);
    const request = Object.defineProperty({}, 'method', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    const error = thrownBy(() => createRequestContext({ request } as RequestContextInput));
    expect(error).toMatchObject({ name: 'RequestContextError', path: 'request' });
  });

  it('refuses an array that claims 2^32-1 items, without iterating them', () => {
    const error = thrownBy(() => createRequestContext({ auth: { claims: { groups: lyingArray() } } }));
    expect(error).toMatchObject({
      name: 'RequestContextError',
      path: 'auth.claims',
      message: `invalid request context: auth.claims holds more than ${maxCopiedValues} values`,
    });
  });

  it('refuses capabilities with more values than a context copies, and copies a large plain object in full', () => {
    const huge = { list: new Array<number>(maxCopiedValues).fill(0) };
    expect(thrownBy(() => createRequestContext({ client: { capabilities: huge } }))).toMatchObject({ path: 'client.capabilities' });
    const large = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`x${index}`, {}]));
    expect(Object.keys(createRequestContext({ client: { capabilities: large } }).client.capabilities!)).toHaveLength(5_000);
  });

  it('reads each getter once, so one that changes on every read yields one consistent frozen copy', () => {
    let reads = 0;
    const claims = Object.defineProperty({}, 'tier', { enumerable: true, get: () => `tier-${++reads}` });
    const context = createRequestContext({ auth: { claims } });
    expect(reads).toBe(1);
    expect([context.auth.claims['tier'], context.auth.claims['tier']]).toEqual(['tier-1', 'tier-1']);
    expect(Object.isFrozen(context.auth.claims)).toBe(true);
  });

  it('drops cycles, functions and class instances but keeps the plain data beside them', () => {
    const cyclic: Record<string, unknown> = { sampling: {}, fn: () => 1, date: new Date(0), map: new Map() };
    cyclic['self'] = cyclic;
    const context = createRequestContext({ client: { capabilities: cyclic } });
    expect(context.client.capabilities).toEqual({ sampling: {} });
  });

  it('copies a proxy that reads like plain data as plain data, and never shares it', () => {
    const capabilities = new Proxy({ sampling: {} }, {});
    const context = createRequestContext({ client: { capabilities } });
    expect(context.client.capabilities).toEqual({ sampling: {} });
    expect(context.client.capabilities).not.toBe(capabilities);
  });

  it('drops fields of the wrong type instead of carrying them into the context', () => {
    const context = createRequestContext({ request: { method: 7, endpoint: {} }, auth: { scopes: 'admin', subject: ['x'] } } as unknown as RequestContextInput);
    expect(context.request).toMatchObject({ method: '', endpoint: '' });
    expect(context.auth.scopes).toEqual([]);
    expect(context.auth.subject).toBeUndefined();
  });

  it('never throws anything but a PolicyError, whatever hostile value sits anywhere in the input (property)', () => {
    // Hostile leaves are drawn as markers and made inside the property, so fast-check never
    // touches a revoked proxy itself while generating, shrinking or printing.
    const makers = [...unreadable.map(([, make]) => make), lyingArray, () => () => 1];
    const hostileValue = fc.oneof(
      fc.jsonValue(),
      fc.nat(makers.length - 1).map((index) => ({ [marker]: index })),
    );
    const materialize = (value: unknown): unknown => {
      if (value === null || typeof value !== 'object') return value;
      if (marker in value) return makers[(value as Record<string, number>)[marker]!]!();
      if (Array.isArray(value)) return value.map(materialize);
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, materialize(item)]));
    };
    const input = fc.record(
      {
        request: fc.record({ method: hostileValue, headers: fc.oneof(hostileValue, fc.dictionary(fc.string(), hostileValue)), endpoint: hostileValue }, { requiredKeys: [] }),
        client: fc.record({ name: hostileValue, capabilities: fc.oneof(hostileValue, fc.dictionary(fc.string(), hostileValue)) }, { requiredKeys: [] }),
        auth: fc.record(
          { scopes: fc.oneof(hostileValue, fc.array(hostileValue)), claims: fc.oneof(hostileValue, fc.dictionary(fc.string(), hostileValue)) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, (value) => {
        const error = thrownBy(() => createRequestContext(materialize(value) as RequestContextInput));
        return error === undefined || error instanceof PolicyError;
      }),
      { seed: 20261201, numRuns: 300 },
    );
  });
});

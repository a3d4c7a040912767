import fc from 'fast-check';
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { conditions } from '../../src/testing/policies.js';

// A small finite domain of request contexts for brute force: each path the arbitraries read takes
// values around the literals they use, plus odd ones (an array claim, a dotted capability key, a
// version that is not one, numbers spelt with spaces or as arrays).

export const domain: Record<string, readonly unknown[]> = {
  'request.headers.x-canary': [undefined, '1', '2', ''],
  'request.headers.x-tool-version': [undefined, '1', '2'],
  'request.headers.x-priority': [undefined, '', 'x', '-2', '-1', '0', '0.5', '1', '2', '2.5', '3', '4', '5', ' 5', '6', '7', '8', '10', '11', '12', '13', '0x5'],
  'request.endpoint': ['', '/mcp', '/mcp/admin', '/mcp/admin/x', '/mcp/x/y', '/x'],
  'auth.scopes': [[], ['read'], ['admin'], ['read', 'admin'], ['other']],
  'auth.issuer': [undefined, 'https://id.example.com', 'https://other.example'],
  'auth.claims.sub': [undefined, 'alice', 'bob', ['alice'], 0],
  'auth.claims.level': [undefined, null, -2, -1, 0, 0.5, 1, 2, 2.5, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, '5', '12', 'x', '', true, false, [5], [], {}],
  'client.name': [undefined, '', 'cursor', 'curious', 'vscode', 'claude-code', 'Vis', 'Visual'],
  'client.version': [undefined, '0.9.0', '1.0.0', '1.0.0-rc.1', 'v2', 'x'],
  'client.capabilities': [
    undefined,
    {},
    { sampling: {} },
    { roots: {}, elicitation: {} },
    { elicitation: { url: {} } },
    { 'elicitation.url': {} },
    { extensions: { 'com.example/report-export': {} }, sampling: {} },
  ],
};
const domainPaths = Object.keys(domain);

/** The domain paths a JSON value names, and those requirements read (capabilities, endpoint, x-canary). */
export function readPaths(json: unknown): string[] {
  const text = JSON.stringify(json);
  const paths = domainPaths.filter((path) => text.includes(`"${path}"`) || (path === 'auth.claims.sub' && text.includes('"auth.claims"')));
  for (const path of ['client.capabilities', 'request.endpoint', 'request.headers.x-canary']) if (!paths.includes(path)) paths.push(path);
  return paths;
}

/** How many contexts the domain has over these paths. */
export function domainSize(paths: readonly string[]): number {
  return paths.reduce((product, path) => product * domain[path]!.length, 1);
}

/** Every context of the domain over these paths (the others absent, the endpoint /mcp), or every `stride`-th. */
export function* contexts(paths: readonly string[], stride = 1): Generator<RequestContext> {
  const size = domainSize(paths);
  for (let index = 0; index < size; index += stride) {
    const headers: Record<string, string> = {};
    const claims: Record<string, unknown> = {};
    const input = {
      request: { method: 'tools/list', endpoint: '/mcp', headers },
      client: {} as Record<string, unknown>,
      auth: { scopes: [] as unknown, claims } as Record<string, unknown>,
    };
    let rest = index;
    for (const path of paths) {
      const values = domain[path]!;
      const value = values[rest % values.length];
      rest = Math.floor(rest / values.length);
      if (value === undefined) continue;
      if (path.startsWith('request.headers.')) headers[path.slice(16)] = value as string;
      else if (path === 'request.endpoint') input.request.endpoint = value as string;
      else if (path === 'auth.scopes') input.auth.scopes = value;
      else if (path.startsWith('auth.claims.')) claims[path.slice(12)] = value;
      else if (path.startsWith('auth.')) input.auth[path.slice(5)] = value;
      else input.client[path.slice(7)] = value;
    }
    yield createRequestContext(input as never);
  }
}

export const primitivePool: PrimitiveMetadata[] = [
  createPrimitiveMetadata('tool', 'search'),
  createPrimitiveMetadata('tool', 'admin_users', { groups: ['admin'], endpoints: ['/mcp/admin/**'] }),
  createPrimitiveMetadata('tool', 'summarize', { groups: ['beta'], requires: { capabilities: ['sampling'] } }),
  createPrimitiveMetadata('tool', 'deploy', { groups: ['canary'], tags: ['experimental'], requires: { headers: { 'x-canary': '1' } } }),
  createPrimitiveMetadata('prompt', 'review', { tags: ['read-only'] }),
  createPrimitiveMetadata('resource', 'workspace', { requires: { capabilities: ['roots', 'elicitation.url'] } }, { uri: 'workspace://files' }),
];

/** Numeric thresholds on a header and a claim: two-argument comparisons either way round, and the between forms. */
export function numericConditions(): fc.Arbitrary<unknown> {
  const path = fc.constantFrom('request.headers.x-priority', 'auth.claims.level');
  const literal = fc.constantFrom(-1, 0, 1, 2.5, 3, 5, 7, 10, 12);
  return fc.oneof(
    fc.tuple(path, fc.constantFrom('<', '<=', '>', '>='), literal, fc.boolean()).map(([read, operator, value, readFirst]) => ({
      [operator]: readFirst ? [{ var: read }, value] : [value, { var: read }],
    })),
    fc.tuple(path, fc.constantFrom('<', '<='), literal, literal).map(([read, operator, low, high]) => ({ [operator]: [low, { var: read }, high] })),
  );
}

/** The library's conditions with numeric thresholds among the leaves. */
export function conditionsWithNumbers(): fc.Arbitrary<unknown> {
  return fc.letrec<{ condition: unknown }>((tie) => ({
    condition: fc.oneof(
      { depthSize: 'small', maxDepth: 2 },
      conditions(),
      numericConditions(),
      fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })),
      fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ or: items })),
    ),
  })).condition;
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPolicy } from '../../src/core/analysis/check-policy.js';
import { compileInvariants, type Invariant } from '../../src/core/analysis/invariants.js';
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { conditions, policyDocuments } from '../../src/testing/policies.js';
import { propertyParameters } from './seed.js';

// The analysis against brute force: every context of a small finite domain (each path the policy
// or the invariant reads takes values around the literals the arbitraries use, plus odd ones: an
// array claim, a dotted capability key, a version that is not one) is decided by the policy. A
// proven invariant has no violation there; a refutation is real (explain agrees, the invariant
// breaks); an unknown verdict needs a reason and a construct the analysis does not model.

/** The values brute force tries for each path the arbitraries read. */
const domain: Record<string, readonly unknown[]> = {
  'request.headers.x-canary': [undefined, '1', '2', ''],
  'request.headers.x-tool-version': [undefined, '1', '2'],
  'request.endpoint': ['', '/mcp', '/mcp/admin', '/mcp/admin/x', '/mcp/x/y', '/x'],
  'auth.scopes': [[], ['read'], ['admin'], ['read', 'admin'], ['other']],
  'auth.claims.sub': [undefined, 'alice', 'bob', ['alice'], 0],
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

function readPaths(json: unknown): string[] {
  const text = JSON.stringify(json);
  const paths = domainPaths.filter((path) => text.includes(`"${path}"`) || (path === 'auth.claims.sub' && text.includes('auth.claims')));
  // Capabilities are read by `has` and by requirements; the endpoint and headers by requirements.
  for (const path of ['client.capabilities', 'request.endpoint', 'request.headers.x-canary']) if (!paths.includes(path)) paths.push(path);
  return paths;
}

function* contexts(paths: readonly string[]): Generator<RequestContext> {
  const choice = paths.map(() => 0);
  for (;;) {
    const headers: Record<string, string> = {};
    const input = {
      request: { method: 'tools/list', endpoint: '/mcp', headers },
      client: {} as Record<string, unknown>,
      auth: { scopes: [] as unknown, claims: {} as Record<string, unknown> },
    };
    paths.forEach((path, index) => {
      const value = domain[path]![choice[index]!];
      if (value === undefined) return;
      if (path.startsWith('request.headers.')) headers[path.slice(16)] = value as string;
      else if (path === 'request.endpoint') input.request.endpoint = value as string;
      else if (path === 'auth.scopes') input.auth.scopes = value;
      else if (path === 'auth.claims.sub') input.auth.claims = { sub: value };
      else input.client[path.slice(7)] = value;
    });
    yield createRequestContext(input as never);
    let position = choice.length - 1;
    while (position >= 0 && ++choice[position]! === domain[paths[position]!]!.length) choice[position--] = 0;
    if (position < 0) return;
  }
}

const primitivePool: PrimitiveMetadata[] = [
  createPrimitiveMetadata('tool', 'search'),
  createPrimitiveMetadata('tool', 'admin_users', { groups: ['admin'], endpoints: ['/mcp/admin/**'] }),
  createPrimitiveMetadata('tool', 'summarize', { groups: ['beta'], requires: { capabilities: ['sampling'] } }),
  createPrimitiveMetadata('tool', 'deploy', { groups: ['canary'], tags: ['experimental'], requires: { headers: { 'x-canary': '1' } } }),
  createPrimitiveMetadata('prompt', 'review', { tags: ['read-only'] }),
  createPrimitiveMetadata('resource', 'workspace', { requires: { capabilities: ['roots', 'elicitation.url'] } }, { uri: 'workspace://files' }),
];

const invariant: fc.Arbitrary<Invariant> = fc
  .record({
    mode: fc.constantFrom('never', 'always'),
    visible: fc.constantFrom('visible', 'hidden', 'either'),
    condition: fc.array(conditions(), { minLength: 1, maxLength: 3 }),
  })
  .map(({ mode, visible, condition }) => {
    const decision = visible === 'visible' ? [{ var: 'visible' }] : visible === 'hidden' ? [{ '!': { var: 'visible' } }] : [];
    // Conjunctions are rarely satisfiable by chance: many invariants hold, and a wrong class shows.
    const body = { and: [...decision, ...condition] };
    return mode === 'never' ? { id: 'property', never: body } : { id: 'property', always: { '!': body } };
  });

describe('checkPolicy against brute force', () => {
  it('proves nothing false, refutes only with real counterexamples, and is unknown only for what it does not model', () => {
    let proven = 0;
    let refuted = 0;
    let unknown = 0;
    fc.assert(
      fc.property(policyDocuments({ maxRules: 4 }), fc.subarray(primitivePool, { minLength: 1, maxLength: 4 }), invariant, (document, primitives, property) => {
        const result = checkPolicy(document, primitives, { invariants: [property] });
        const verdict = result.invariants[0]!;
        const policy = compilePolicy(document);
        const [compiled] = compileInvariants([property]);
        if (verdict.status === 'refuted') {
          refuted++;
          const { primitive, context, decision } = verdict.counterexample!;
          const actual = policy.explain(createRequestContext(context), primitive);
          expect(actual).toEqual(decision);
          expect(compiled!.violates(createRequestContext(context), primitive, actual)).toBe(true);
          return;
        }
        if (verdict.status === 'unknown') {
          unknown++;
          expect(verdict.reasons.length).toBeGreaterThan(0);
          expect(JSON.stringify([document, property])).toContain('fractional');
        } else proven++;
        if (verdict.status !== 'proven') return;
        for (const context of contexts(readPaths([document, property]))) {
          for (const primitive of primitives) {
            const decision = policy.explain(context, primitive);
            if (compiled!.violates(context, primitive, decision)) {
              throw new Error(`proven, but ${primitive.name} breaks it for ${JSON.stringify(context)} (${decision.message})`);
            }
          }
        }
      }),
      propertyParameters(100),
    );
    // The arbitraries exercise every verdict.
    expect(proven).toBeGreaterThan(10);
    expect(refuted).toBeGreaterThan(10);
    expect(unknown).toBeGreaterThan(0);
    if (process.env.CHECK_COUNTS) console.log({ proven, refuted, unknown });
    // About 2 s alone; bounded for a loaded machine, like the other heavy property tests.
  }, 120_000);

  it('lints only what brute force confirms: hidden everywhere, visible everywhere although denied by name', () => {
    fc.assert(
      fc.property(policyDocuments({ maxRules: 4 }), fc.subarray(primitivePool, { minLength: 1, maxLength: 4 }), (document, primitives) => {
        const { lint } = checkPolicy(document, primitives);
        const policy = compilePolicy(document);
        for (const finding of lint) {
          if (finding.code !== 'primitive-never-visible' && finding.code !== 'deny-never-hides') continue;
          const primitive = finding.primitive!;
          const visible = finding.code === 'deny-never-hides';
          // A plain check per context, as in the proof loop above: expect() costs more than the decision.
          for (const context of contexts(readPaths(document))) {
            if (policy.evaluate(context, primitive) !== visible) {
              throw new Error(`${finding.code} on ${primitive.name}, but ${JSON.stringify(context)} decides visible: ${!visible}`);
            }
          }
        }
      }),
      propertyParameters(50),
    );
  }, 120_000);
});

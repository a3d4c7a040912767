import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCatalog, type PrimitiveSource } from '../../src/adapter/catalog.js';
import { createPaginator, InvalidCursorError } from '../../src/adapter/pagination.js';
import { createPolicyView, type MissingCapabilities } from '../../src/adapter/policy-view.js';
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveAnnotation, type PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { compileContextKey } from '../../src/core/policy/context-key.js';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { createVisibilityFilter } from '../../src/core/policy/visibility-filter.js';
import { clientCapabilities } from '../../src/testing/callers.js';
import { propertyParameters } from './seed.js';

// Two contexts with equal cache keys must get equal decisions for every primitive, and the list
// and cursor caches built on those keys must obey the same rule. The policies here use every
// kind of read a dot-path projection can get wrong: sub-paths below headers, capabilities and
// claims, header names with dots, computed `var` paths, `missing`/`missing_some` (literal and
// computed), whole objects, numbers JSON prints alike, and custom operators.

const computedPath = fc.constantFrom('request.headers.', 'auth.claims.', 'client.capabilities.');

const read = fc
  .oneof(
    // Sub-paths below free-form maps. A literal `request.headers.x.team` no longer compiles (a header
    // is a string, with no field "team"); dotted header names stay in the requirements below.
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'request.headers.x-team.length',
        'request.headers.x-team.0',
        'client.capabilities.elicitation.url',
        'client.capabilities.sampling.tools',
        'auth.claims.level',
        'auth.claims.org.role',
        'auth.scopes.length',
      ),
    },
    // Fields, and whole objects.
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'request.headers.x-team',
        'request.headers.x',
        'request.headers',
        'request.endpoint',
        'request',
        'client.capabilities',
        'auth.claims',
        'auth.claims.org',
        'auth.scopes',
        'auth.subject',
      ),
    },
  )
  .map((path): unknown => ({ var: path }));

// Computed paths: which header or claim is read depends on the request.
const computedRead = fc
  .tuple(computedPath, fc.constantFrom<unknown>({ var: 'request.headers.x-which' }, 'x-team', 'level'))
  .map(([prefix, rest]) => ({ var: { cat: [prefix, rest] } }));

const anyRead = fc.oneof({ weight: 6, arbitrary: read }, { weight: 1, arbitrary: computedRead });

const value = fc.constantFrom<unknown>(1, 3, 8, 0, 'abc', 'a', 'admin', null, true);

const condition: fc.Arbitrary<unknown> = fc.letrec<{ condition: unknown }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.tuple(fc.constantFrom('==', '!=', '<', '>=', '==='), anyRead, value).map(([op, left, right]) => ({ [op]: [left, right] })),
    fc.tuple(anyRead, value).map(([left, right]) => ({ '==': [{ var: [(left as { var: unknown }).var, right] }, right] })),
    anyRead.map((path) => ({ '!!': [path] })),
    anyRead.map((path) => ({ '>': [{ '/': [1, path] }, 0] })),
    fc
      .subarray(['request.headers.x-team', 'request.headers.x-team.length', 'auth.claims.org.role', 'auth.subject', 'client.capabilities.sampling'], { minLength: 1 })
      .map((keys) => ({ missing: keys })),
    fc
      .tuple(fc.constantFrom(1, 2), fc.subarray(['request.headers.x-team', 'auth.claims.level', 'client.name'], { minLength: 1 }))
      .map(([need, keys]) => ({ missing_some: [need, keys] })),
    computedPath.map((prefix) => ({ missing: [{ cat: [prefix, { var: 'request.headers.x-which' }] }] })),
    fc.constantFrom('sampling', 'elicitation.url', 'extensions.com.example/report-export').map((path) => ({ has: path })),
    fc.constantFrom('org.role', 'level').map((path) => ({ has: [{ var: 'auth.claims' }, path] })),
    fc.constantFrom('admin', 'read').map((scope) => ({ some: [{ var: 'auth.scopes' }, { '==': [{ var: '' }, scope] }] })),
    fc.constantFrom(30, 70).map((weight) => ({
      '==': [
        {
          fractional: [
            ['on', weight],
            ['off', 100 - weight],
          ],
        },
        'on',
      ],
    })),
    anyRead.map((path) => ({ shout: [path] })),
    tie('condition').map((inner) => ({ '!': [inner] })),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ or: items })),
  ),
})).condition;

const policyDocument: fc.Arbitrary<PolicyDocument> = fc
  .record({
    default: fc.constantFrom('allow' as const, 'deny' as const),
    enforceRequirements: fc.boolean(),
    rules: fc.array(fc.record({ effect: fc.constantFrom('allow' as const, 'deny' as const), groups: fc.subarray(['a', 'b'], { minLength: 1 }), when: condition }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map(({ rules, ...document }) => ({
    version: 1 as const,
    ...document,
    rules: rules.map(({ groups, ...rule }, index) => ({ id: `rule-${index}`, appliesTo: index % 2 === 0 ? { groups } : undefined, ...rule })),
  }));

const annotation: fc.Arbitrary<PrimitiveAnnotation> = fc.record(
  {
    groups: fc.subarray(['a', 'b']),
    requires: fc.record(
      {
        capabilities: fc.subarray(['sampling', 'elicitation.url']),
        headers: fc.constantFrom<Record<string, string>>({}, { 'x.team': 'a' }, { 'x-team': 'abc' }, { X: 'a' }),
      },
      { requiredKeys: [] },
    ),
    endpoints: fc.constantFrom(['/mcp/admin'], ['/mcp/**']),
  },
  { requiredKeys: [] },
);

const registry = fc
  .array(annotation, { minLength: 1, maxLength: 8 })
  .map((annotations) => annotations.map((item, index) => ({ name: `tool-${index}`, annotation: item, metadata: createPrimitiveMetadata('tool', `tool-${index}`, item) })));

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

// Small domains, so contexts often agree on some reads and differ on others.
const contextFields = fc.record({
  team: maybe(fc.constantFrom('abc', 'xyz', 'abcdefghij', 'a')),
  tenant: maybe(fc.constantFrom('acme', 'admin')),
  dotted: maybe(fc.constantFrom('a', 'b')),
  x: maybe(fc.constantFrom('a', 'b')),
  which: maybe(fc.constantFrom('x-team', 'x-tenant', 'level', 'org')),
  endpoint: fc.constantFrom('/mcp', '/mcp/admin'),
  capabilities: maybe(clientCapabilities()),
  name: maybe(fc.constantFrom('cursor', 'vscode')),
  subject: maybe(fc.constantFrom('alice', 'bob')),
  scopes: fc.subarray(['read', 'admin']),
  level: maybe(fc.constantFrom(0, -0, 1, Number.NaN, null, 'admin')),
  role: maybe(fc.constantFrom('admin', 'user')),
});

type ContextFields = typeof contextFields extends fc.Arbitrary<infer T> ? T : never;

function buildContext(drawn: ContextFields): RequestContext {
  const headers: Record<string, string> = {};
  if (drawn.team !== undefined) headers['x-team'] = drawn.team;
  if (drawn.tenant !== undefined) headers['x-tenant'] = drawn.tenant;
  if (drawn.dotted !== undefined) headers['x.team'] = drawn.dotted;
  if (drawn.x !== undefined) headers['x'] = drawn.x;
  if (drawn.which !== undefined) headers['x-which'] = drawn.which;
  const claims: Record<string, unknown> = {};
  if (drawn.level !== undefined) claims['level'] = drawn.level;
  if (drawn.role !== undefined) claims['org'] = { role: drawn.role };
  return createRequestContext({
    request: { method: 'tools/list', headers, endpoint: drawn.endpoint },
    client: { name: drawn.name, version: '1.0.0', capabilities: drawn.capabilities },
    auth: { subject: drawn.subject, scopes: drawn.scopes, claims },
  });
}

const requestContext: fc.Arbitrary<RequestContext> = contextFields.map(buildContext);

const fieldNames = ['team', 'tenant', 'dotted', 'x', 'which', 'endpoint', 'capabilities', 'name', 'subject', 'scopes', 'level', 'role'] as const;

/** A context and others that differ from it in one or two fields (often), or in anything. */
const contextFamily: fc.Arbitrary<[RequestContext, RequestContext[]]> = fc
  .tuple(contextFields, fc.array(fc.tuple(contextFields, fc.subarray([...fieldNames], { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 8 }))
  .map(([base, variants]) => [
    buildContext(base),
    variants.map(([other, fields], index) => buildContext(index % 5 === 4 ? other : { ...base, ...Object.fromEntries(fields.map((field) => [field, other[field]])) })),
  ]);

/** A pure custom operator (the policy is then uncacheable), and one whose answer changes with `clock`. */
const clock = { now: 0 };
const pureOperators = { shout: (value: unknown) => String(value).toUpperCase() === 'ABC' };
const clockOperators = { shout: (value: unknown) => (clock.now + String(value).length) % 2 === 0 };

type Tools = Array<{ name: string; annotation: PrimitiveAnnotation; metadata: PrimitiveMetadata }>;

function sourcesOf(tools: Tools): PrimitiveSource[] {
  return tools.map(({ name, annotation: meta }) => ({ kind: 'tool', key: name, name, meta: { 'mcp-gate': meta } }));
}
function catalogOf(tools: Tools) {
  return buildCatalog(sourcesOf(tools), { version: 1, annotations: new Map(), versionSeparator: '@' });
}

const usesShout = (document: PolicyDocument) => JSON.stringify(document).includes('"shout"');

describe('context keys', () => {
  it('give equal decisions for every primitive to two contexts with equal keys', () => {
    let equalKeys = 0; // of contexts that differ
    let differentDecisions = 0;
    fc.assert(
      fc.property(policyDocument, registry, contextFamily, (document, tools, [a, others]) => {
        const policy = compilePolicy(document, { operators: pureOperators });
        const primitives = tools.map((tool) => tool.metadata);
        const key = policy.contextKeyFor(primitives);
        const wholeKey = compileContextKey({ paths: policy.reads, requiredHeaders: [] });
        const decisions = (context: RequestContext) => primitives.map((primitive) => policy.evaluate(context, primitive));
        for (const b of others) {
          if (key(a) !== key(b)) {
            if (JSON.stringify(decisions(a)) !== JSON.stringify(decisions(b))) differentDecisions++;
            continue;
          }
          if (JSON.stringify([a.request, a.client, a.auth]) !== JSON.stringify([b.request, b.client, b.auth])) equalKeys++;
          expect(decisions(b)).toEqual(decisions(a));
          // The whole policy's key (internal since Policy.contextKey left the public type) covers at least as much.
          if (wholeKey(a) === wholeKey(b)) expect(decisions(b)).toEqual(decisions(a));
        }
      }),
      propertyParameters(300),
    );
    // Not vacuous: many pairs of different contexts shared a key, and many were told apart because decisions differed.
    expect(equalKeys).toBeGreaterThan(200);
    expect(differentDecisions).toBeGreaterThan(50);
  });

  it('let createVisibilityFilter return exactly what evaluating every primitive returns, custom operators or not', () => {
    fc.assert(
      fc.property(policyDocument, registry, fc.array(fc.tuple(requestContext, fc.nat(3)), { minLength: 2, maxLength: 20 }), (document, tools, requests) => {
        const policy = compilePolicy(document, usesShout(document) ? { operators: clockOperators } : {});
        const primitives = tools.map((tool) => tool.metadata);
        const filter = createVisibilityFilter(policy, primitives, (item) => item, { minItemsToCache: 0, cacheSize: 4 });
        // Each context twice in a row, so lists are admitted to the cache and served from it.
        for (const [context, now] of [...requests, ...requests]) {
          clock.now = now;
          expect(filter.visible(context)).toEqual(primitives.filter((primitive) => policy.evaluate(context, primitive)));
          expect(filter.visible(context)).toEqual(primitives.filter((primitive) => policy.evaluate(context, primitive)));
        }
      }),
      propertyParameters(150),
    );
  });

  it('let a gate list from its cache and open cursors only where a fresh list is the same', () => {
    fc.assert(
      fc.property(
        policyDocument,
        registry,
        fc.constantFrom<MissingCapabilities>('deny', 'allow'),
        fc.array(requestContext, { minLength: 2, maxLength: 10 }),
        (document, tools, onMissingCapabilities, contexts) => {
          const policy = compilePolicy(document, usesShout(document) ? { operators: pureOperators } : {});
          const catalog = catalogOf(tools);
          const view = createPolicyView(policy, onMissingCapabilities);
          const paginator = createPaginator(1, 'secret');
          const fresh = (context: RequestContext) => {
            const once = createPolicyView(policy, onMissingCapabilities);
            return once.visibleEntries(catalog, 'tool', context, once.cacheKey(catalog, context)).map((entry) => entry.key);
          };
          const binding = (key: string) => `tool\u0000${policy.revision}\u0000${key}`;
          for (const a of contexts) {
            for (const b of contexts) {
              const keyA = view.cacheKey(catalog, a);
              const keyB = view.cacheKey(catalog, b);
              const listedB = view.visibleEntries(catalog, 'tool', b, keyB).map((entry) => entry.key);
              expect(listedB).toEqual(fresh(b));
              const listA = view.visibleEntries(catalog, 'tool', a, keyA);
              const cursor = paginator.page(listA, undefined, binding(keyA)).nextCursor;
              if (cursor === undefined) continue;
              if (keyA === keyB) {
                expect(fresh(b)).toEqual(fresh(a));
                expect(paginator.page(view.visibleEntries(catalog, 'tool', b, keyB), cursor, binding(keyB)).items.map((entry) => entry.key)).toEqual(fresh(b).slice(1, 2));
              } else {
                expect(() => paginator.page(view.visibleEntries(catalog, 'tool', b, keyB), cursor, binding(keyB))).toThrow(InvalidCursorError);
              }
            }
          }
        },
      ),
      propertyParameters(80),
    );
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPolicy, type InvariantVerdict } from '../../../src/core/analysis/check-policy.js';
import { compileInvariants, type Invariant } from '../../../src/core/analysis/invariants.js';
import { createRequestContext } from '../../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { compilePolicy } from '../../../src/core/policy/compile-policy.js';
import { parseManifest } from '../../../src/cli/manifest.js';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')) as unknown;
const demoPolicy = read('policies/demo.json');
const demoManifest = parseManifest(read('policies/demo.manifest.json'), 'demo.manifest.json');

const adminOnlyOnAdmin: Invariant = {
  id: 'admin-only-on-admin',
  never: {
    and: [
      { var: 'visible' },
      { glob: ['admin_*', { var: 'primitive.name' }] },
      { '!': { or: [{ glob: ['/mcp/admin', { var: 'request.endpoint' }] }, { glob: ['/mcp/admin/**', { var: 'request.endpoint' }] }] } },
    ],
  },
};
const samplingRequired: Invariant = {
  id: 'sampling-required',
  never: { and: [{ var: 'visible' }, { in: ['sampling', { var: 'primitive.requires.capabilities' }] }, { '!': { has: 'sampling' } }] },
};
const deployNeedsScope: Invariant = {
  id: 'deploy-needs-scope',
  never: { and: [{ var: 'visible' }, { glob: ['deploy_*', { var: 'primitive.name' }] }, { '!': { in: ['deploy', { var: 'auth.scopes' }] } }] },
};

/** A refutation is real: explain decides the counterexample the same way, and the invariant breaks on it. */
function expectConfirmed(policyDocument: unknown, verdict: InvariantVerdict, invariant: Invariant): void {
  expect(verdict.status).toBe('refuted');
  const { primitive, context, decision } = verdict.counterexample!;
  const policy = compilePolicy(policyDocument);
  const actual = policy.explain(createRequestContext(context), primitive);
  expect(actual).toEqual(decision);
  const [compiled] = compileInvariants([invariant]);
  expect(compiled!.violates(createRequestContext(context), primitive, actual)).toBe(true);
}

describe('checkPolicy', () => {
  it('proves invariants of the demo policy and refutes one with a small, real counterexample', () => {
    const result = checkPolicy(demoPolicy, demoManifest, { invariants: [adminOnlyOnAdmin, samplingRequired, deployNeedsScope] });
    expect(result.invariants.map((verdict) => [verdict.id, verdict.status])).toEqual([
      ['admin-only-on-admin', 'proven'],
      ['sampling-required', 'proven'],
      ['deploy-needs-scope', 'refuted'],
    ]);
    const refuted = result.invariants[2]!;
    expect(refuted.counterexample!.primitive.name).toBe('deploy_preview');
    // Minimal: only the header that lets the canary tool through.
    expect(refuted.counterexample!.context).toEqual({ request: { endpoint: '/mcp', headers: { 'x-canary': '1' } } });
    expectConfirmed(demoPolicy, refuted, deployNeedsScope);
  });

  it('is unknown, with the reason, where a fractional rollout decides — yet refutes with a caller the rollout really lets in', () => {
    const policy = read('policies/percentage-rollout.json');
    const primitives = [createPrimitiveMetadata('tool', 'search', { groups: ['rollout'] }), createPrimitiveMetadata('tool', 'other')];
    const inRollout = { in: ['rollout', { var: 'primitive.groups' }] };
    const nameless: Invariant = { id: 'rollout-hidden-from-nameless', never: { and: [{ var: 'visible' }, inRollout, { '!': { var: 'client.name' } }] } };
    const nobody: Invariant = { id: 'rollout-reaches-nobody', never: { and: [{ var: 'visible' }, inRollout] } };
    const result = checkPolicy(policy, primitives, { invariants: [nameless, nobody] });
    // True (the rule hides rollouts from nameless clients), but the hash is not modelled.
    expect(result.invariants[0]!.status).toBe('unknown');
    expect(result.invariants[0]!.reasons).toEqual(['tool search: rule "rollout-10-percent": fractional buckets callers by a hash, which the analysis does not model']);
    // Names tried where the hash reads them find a caller in the 10 %.
    expectConfirmed(policy, result.invariants[1]!, nobody);
    expect(result.invariants[1]!.counterexample!.context.client!.name).toMatch(/^client-\d+$/);
    expect(result.passed).toBe(false);
  });

  it('proves what a sem_ver threshold on a header decides (version-routing)', () => {
    const policy = read('policies/version-routing.json');
    const primitives = [createPrimitiveMetadata('tool', 'search', { version: '1.0.0' }), createPrimitiveMetadata('tool', 'search', { version: '2.0.0' })];
    const v2NeedsMajor2: Invariant = {
      id: 'v2-needs-major-2',
      never: {
        and: [{ var: 'visible' }, { '===': [{ var: 'primitive.version' }, '2.0.0'] }, { '!': { sem_ver: [{ var: 'request.headers.x-tool-version' }, '^', '2.0.0'] } }],
      },
    };
    const v2NeedsExactly2: Invariant = {
      id: 'v2-needs-exactly-2',
      never: { and: [{ var: 'visible' }, { '===': [{ var: 'primitive.version' }, '2.0.0'] }, { '!==': [{ var: 'request.headers.x-tool-version' }, '2'] }] },
    };
    // Hidden although the header is at least 2.0.0: a major above 2 (the class `^` cuts off).
    const v2ForEveryNewerHeader: Invariant = {
      id: 'v2-for-every-newer-header',
      never: {
        and: [{ '!': { var: 'visible' } }, { '===': [{ var: 'primitive.version' }, '2.0.0'] }, { sem_ver: [{ var: 'request.headers.x-tool-version' }, '>=', '2.0.0'] }],
      },
    };
    const result = checkPolicy(policy, primitives, { invariants: [v2NeedsMajor2, v2NeedsExactly2, v2ForEveryNewerHeader] });
    expect(result.invariants[0]!.status).toBe('proven');
    expectConfirmed(policy, result.invariants[2]!, v2ForEveryNewerHeader);
    expect(result.invariants[2]!.counterexample!.context.request!.headers!['x-tool-version']).toMatch(/^3\./);
    // "2.0.0", "v2", "2.1" … are major 2 too.
    expectConfirmed(policy, result.invariants[1]!, v2NeedsExactly2);
    expect(result.invariants[1]!.counterexample!.context.request!.headers!['x-tool-version']).not.toBe('2');
  });

  it('finds the array claim that a loose == lets through', () => {
    const policy = { version: 1, default: 'deny', rules: [{ id: 'alice', effect: 'allow', when: { '==': [{ var: 'auth.claims.sub' }, 'alice'] } }] };
    const onlyAlice: Invariant = { id: 'only-alice', never: { and: [{ var: 'visible' }, { '!==': [{ var: 'auth.claims.sub' }, 'alice'] }] } };
    const result = checkPolicy(policy, [createPrimitiveMetadata('tool', 'search')], { invariants: [onlyAlice] });
    expectConfirmed(policy, result.invariants[0]!, onlyAlice);
    expect(result.invariants[0]!.counterexample!.context.auth).toEqual({ claims: { sub: ['alice'] } });
  });

  it('tells a dotted capability key from a nested one, as the presence checks do', () => {
    const policy = { version: 1, default: 'allow', rules: [{ id: 'url', effect: 'deny', when: { '!': { has: 'elicitation.url' } } }] };
    const needsElicitation: Invariant = { id: 'needs-elicitation', never: { and: [{ var: 'visible' }, { '!': { has: 'elicitation' } }] } };
    const result = checkPolicy(policy, [createPrimitiveMetadata('tool', 'connect')], { invariants: [needsElicitation] });
    expectConfirmed(policy, result.invariants[0]!, needsElicitation);
    expect(result.invariants[0]!.counterexample!.context.client).toEqual({ capabilities: { 'elicitation.url': {} } });
  });

  it('separates strings by prefix, suffix and glob together (the shortest string of each class)', () => {
    const policy = {
      version: 1,
      default: 'allow',
      rules: [
        {
          id: 'a',
          effect: 'deny',
          appliesTo: { names: ['t'] },
          when: { and: [{ starts_with: [{ var: 'client.name' }, 'ab'] }, { ends_with: [{ var: 'client.name' }, 'ba'] }] },
        },
        { id: 'b', effect: 'deny', appliesTo: { names: ['t'] }, when: { glob: ['/x/*/y', { var: 'request.endpoint' }] } },
      ],
    };
    const never: Invariant = { id: 'hidden-only-on-xy', never: { and: [{ '!': { var: 'visible' } }, { '!': { glob: ['/x/**', { var: 'request.endpoint' }] } }] } };
    const result = checkPolicy(policy, [createPrimitiveMetadata('tool', 't')], { invariants: [never] });
    expectConfirmed(policy, result.invariants[0]!, never);
    // The shortest name that starts with "ab" and ends with "ba" overlaps them.
    expect(result.invariants[0]!.counterexample!.context.client).toEqual({ name: 'aba' });
  });

  it('runs the invariants a policy document carries', () => {
    const policy = { version: 1, default: 'allow', rules: [], invariants: [{ id: 'nothing-visible', never: { var: 'visible' } }] };
    const result = checkPolicy(policy, [createPrimitiveMetadata('prompt', 'p')]);
    expect(result.invariants.map((verdict) => verdict.status)).toEqual(['refuted']);
  });
});

describe('checkPolicy lint', () => {
  const tool = (name: string, annotation = {}): PrimitiveMetadata => createPrimitiveMetadata('tool', name, annotation);
  const lint = (rules: unknown[], primitives: PrimitiveMetadata[], defaultEffect = 'allow') =>
    checkPolicy({ version: 1, default: defaultEffect, rules }, primitives).lint.map((finding) => [finding.code, finding.severity, finding.ruleId ?? finding.primitive?.name]);

  it('reports a rule that applies to no primitive', () => {
    expect(lint([{ id: 'nobody', effect: 'deny', appliesTo: { names: ['missing_*'] } }], [tool('a')])).toEqual([['rule-never-applies', 'warning', 'nobody']]);
  });

  it('reports a condition that is false for every context as an error, and a deny rule that never hides', () => {
    const rules = [
      { id: 'never', effect: 'deny', appliesTo: { names: ['a'] }, when: { and: [{ '==': [{ var: 'client.name' }, 'x'] }, { '==': [{ var: 'client.name' }, 'y'] }] } },
    ];
    expect(lint(rules, [tool('a')])).toEqual([
      ['condition-always-false', 'error', 'never'],
      ['deny-never-hides', 'error', 'a'],
    ]);
  });

  it('reports a condition that is true for every context, and a primitive no context sees', () => {
    const rules = [{ id: 'always', effect: 'deny', appliesTo: { names: ['a'] }, when: { or: [{ '!': { var: 'client.name' } }, { var: 'client.name' }] } }];
    expect(lint(rules, [tool('a')])).toEqual([
      ['condition-always-true', 'warning', 'always'],
      ['primitive-never-visible', 'warning', 'a'],
    ]);
  });

  it('reports a rule whose removal changes no decision', () => {
    const rules = [
      { id: 'wide', effect: 'deny', when: { '!==': [{ var: 'request.headers.x-team' }, 'core'] } },
      { id: 'narrow', effect: 'deny', appliesTo: { names: ['a'] }, when: { '===': [{ var: 'request.headers.x-team' }, 'ops'] } },
    ];
    expect(lint(rules, [tool('a'), tool('b')])).toEqual([['rule-shadowed', 'warning', 'narrow']]);
  });

  it('reports nothing for rules that each decide something', () => {
    const rules = [{ id: 'canary', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!==': [{ var: 'request.headers.x-canary' }, '1'] } }];
    expect(lint(rules, [tool('a', { groups: ['canary'] }), tool('b')])).toEqual([]);
  });
});

describe('checkPolicy on absence', () => {
  it('tells an absent value from a present one when a rule compares it with null', () => {
    const policy = { version: 1, default: 'allow', rules: [{ id: 'named-only', effect: 'deny', when: { '===': [{ var: 'client.name' }, null] } }] };
    const alwaysVisible: Invariant = { id: 'always-visible', always: { var: 'visible' } };
    const result = checkPolicy(policy, [createPrimitiveMetadata('tool', 't')], { invariants: [alwaysVisible] });
    expectConfirmed(policy, result.invariants[0]!, alwaysVisible);
    const hiddenNamed: Invariant = { id: 'never-visible', never: { var: 'visible' } };
    const named = checkPolicy(policy, [createPrimitiveMetadata('tool', 't')], { invariants: [hiddenNamed] });
    expectConfirmed(policy, named.invariants[0]!, hiddenNamed);
    expect(named.invariants[0]!.counterexample!.context.client).toEqual({ name: '' });
  });
});

describe('invariants and the revision', () => {
  it('leaves the revision alone: invariants change no decision', () => {
    const document = { version: 1, default: 'allow', rules: [{ id: 'a', effect: 'deny', when: { '==': [{ var: 'client.name' }, 'x'] } }] };
    const withInvariants = { ...document, invariants: [{ id: 'nothing-visible', never: { var: 'visible' } }] };
    expect(compilePolicy(withInvariants).revision).toBe(compilePolicy(document).revision);
    // A change to what decides still changes it.
    expect(compilePolicy({ ...withInvariants, default: 'deny' }).revision).not.toBe(compilePolicy(document).revision);
  });
});

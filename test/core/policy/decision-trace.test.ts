import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRequestContext, type RequestContextInput } from '../../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveMetadata } from '../../../src/core/primitive-metadata.js';
import { createDecisionTracer, type ClauseTrace } from '../../../src/core/policy/decision-trace.js';
import { clientProfiles, profileContext } from '../../../src/profiles/client-profiles.js';

const demoPolicy = JSON.parse(readFileSync(new URL('../../../policies/demo.json', import.meta.url), 'utf8')) as unknown;
const demoManifest = JSON.parse(readFileSync(new URL('../../../policies/demo.manifest.json', import.meta.url), 'utf8')) as {
  primitives: Array<{ kind: PrimitiveMetadata['kind']; name: string; uri?: string; uriTemplate?: string } & Record<string, unknown>>;
};
const primitives = demoManifest.primitives.map(({ kind, name, uri, uriTemplate, ...annotation }) =>
  createPrimitiveMetadata(kind, name, annotation, { ...(uri === undefined ? {} : { uri }), ...(uriTemplate === undefined ? {} : { uriTemplate }) }),
);
const primitive = (name: string) => primitives.find((entry) => entry.name === name)!;

function contextOf(profileId: string, extra: { headers?: Record<string, string>; endpoint?: string; scopes?: string[] } = {}) {
  const base: RequestContextInput = profileContext(clientProfiles.find((profile) => profile.id === profileId)!);
  return createRequestContext({
    request: { ...base.request, endpoint: extra.endpoint ?? '/mcp', headers: extra.headers ?? {} },
    client: base.client,
    auth: { scopes: extra.scopes ?? [] },
  });
}

/** `path = value` lines of a clause tree, `(skipped)` for clauses the policy never evaluated. */
function lines(trace: ClauseTrace, depth = 0): string[] {
  const shown = trace.skipped ? '(skipped)' : trace.error !== undefined ? `error: ${trace.error}` : (JSON.stringify(trace.value) ?? 'undefined');
  return [`${'  '.repeat(depth)}${trace.path} = ${shown}`, ...trace.children.flatMap((child) => lines(child, depth + 1))];
}

describe('createDecisionTracer', () => {
  const tracer = createDecisionTracer(demoPolicy);

  it('traces the deciding rule clause by clause, with the values the request gives', () => {
    const trace = tracer.trace(contextOf('cursor-vscode'), primitive('deploy_preview'));
    expect(trace.decision).toMatchObject({ allowed: false, reason: 'rule', ruleId: 'canary-needs-header' });
    const canary = trace.rules[0]!;
    expect(canary).toMatchObject({ id: 'canary-needs-header', applies: true, reached: true, matched: true, decided: true });
    expect(lines(canary.when!)).toEqual(['rules[0].when = true', '  rules[0].when["!=="][0] = null']);
    expect(trace.rules.slice(1).map((rule) => [rule.id, rule.applies, rule.reached, rule.decided])).toEqual([
      ['beta-testers-only', false, false, false],
      ['admin-endpoint-only', false, false, false],
      ['search-v2-header-or-rollout', false, false, false],
    ]);
  });

  it('marks the clauses that or and and never evaluated as skipped', () => {
    const trace = tracer.trace(contextOf('claude-code', { scopes: ['beta'] }), primitive('insights'));
    expect(trace.decision).toMatchObject({ allowed: true, reason: 'default' });
    const beta = trace.rules[1]!;
    expect(beta).toMatchObject({ applies: true, reached: true, matched: false, decided: false });
    expect(lines(beta.when!)).toEqual([
      'rules[1].when = false',
      '  rules[1].when["!"] = true',
      '    rules[1].when["!"].or[0] = true',
      '      rules[1].when["!"].or[0].in[1] = ["beta"]',
      '    rules[1].when["!"].or[1] = (skipped)',
      '      rules[1].when["!"].or[1].in[0] = (skipped)',
    ]);
  });

  it('reaches no rule when a requirement decides', () => {
    const trace = tracer.trace(contextOf('cursor-vscode'), primitive('summarize'));
    expect(trace.decision).toMatchObject({ allowed: false, reason: 'requirement' });
    expect(trace.rules.some((rule) => rule.reached || rule.decided)).toBe(false);
  });

  it('reaches deny rules before allow rules and none after the deciding one', () => {
    const policy = {
      version: 1,
      default: 'deny',
      rules: [
        { id: 'allow-all', effect: 'allow' },
        { id: 'deny-admin-endpoint', effect: 'deny', when: { '==': [{ var: 'request.endpoint' }, '/mcp/admin'] } },
        { id: 'deny-cursor', effect: 'deny', when: { '==': [{ var: 'client.name' }, 'cursor-vscode'] } },
      ],
    };
    const tracer = createDecisionTracer(policy);
    const status = (context: ReturnType<typeof contextOf>) =>
      tracer
        .trace(context, primitive('search'))
        .rules.map((rule) => `${rule.id}:${rule.reached ? 'reached' : '-'}:${rule.matched ? 'matched' : '-'}:${rule.decided ? 'decided' : '-'}`);
    expect(status(contextOf('cursor-vscode', { endpoint: '/mcp/admin' }))).toEqual([
      'allow-all:-:matched:-',
      'deny-admin-endpoint:reached:matched:decided',
      'deny-cursor:-:matched:-',
    ]);
    expect(status(contextOf('claude-code'))).toEqual(['allow-all:reached:matched:decided', 'deny-admin-endpoint:reached:-:-', 'deny-cursor:reached:-:-']);
  });

  it('leaves the item bodies of array operators out and keeps the condition whole', () => {
    const policy = {
      version: 1,
      default: 'allow',
      rules: [{ id: 'no-admin-scope', effect: 'deny', when: { '!': { some: [{ var: 'auth.scopes' }, { '==': [{ var: '' }, 'admin'] }] } } }],
    };
    const trace = createDecisionTracer(policy).trace(contextOf('cursor-vscode', { scopes: ['admin'] }), primitive('search'));
    expect(lines(trace.rules[0]!.when!)).toEqual(['rules[0].when = false', '  rules[0].when["!"] = true', '    rules[0].when["!"].some[0] = ["admin"]']);
    expect(trace.decision).toMatchObject({ allowed: true, reason: 'default' });
  });

  it('agrees with explain for every real client, header set, endpoint and demo primitive', () => {
    const headerSets: Array<Record<string, string>> = [{}, { 'x-canary': '1' }, { 'x-tool-version': '2' }, { 'x-tool-version': '1' }];
    let checked = 0;
    for (const profile of clientProfiles) {
      for (const headers of headerSets) {
        for (const endpoint of ['/mcp', '/mcp/admin']) {
          const context = contextOf(profile.id, { headers, endpoint });
          for (const entry of primitives) {
            const { decision, rules } = tracer.trace(context, entry);
            expect(decision).toEqual(tracer.policy.explain(context, entry));
            const decided = rules.filter((rule) => rule.decided);
            if (decision.reason === 'rule') {
              expect(decided.map((rule) => rule.id)).toEqual([decision.ruleId]);
              // The deciding rule's traced condition holds; every rule reached before it does not.
              expect(decided[0]!.matched).toBe(true);
              const denyFirst = [...rules.filter((rule) => rule.effect === 'deny'), ...rules.filter((rule) => rule.effect === 'allow')];
              const before = denyFirst.slice(0, denyFirst.indexOf(decided[0]!)).filter((rule) => rule.reached);
              expect(before.every((rule) => !rule.matched)).toBe(true);
              expect(denyFirst.slice(denyFirst.indexOf(decided[0]!) + 1).some((rule) => rule.reached)).toBe(false);
            } else {
              expect(decided).toEqual([]);
              if (decision.reason === 'default') expect(rules.filter((rule) => rule.reached).every((rule) => !rule.matched)).toBe(true);
            }
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(clientProfiles.length * 4 * 2 * primitives.length);
  });
});

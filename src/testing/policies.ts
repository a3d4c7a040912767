import fc from 'fast-check';
import type { PolicyDocument } from '../core/policy/schema.js';
import { capabilityPaths } from './callers.js';

/** Options of policyDocuments: how many rules, which conditions, and the names, groups and tags rules match on. */
export interface PolicyDocumentOptions {
  /** Most rules per document (default 5). */
  readonly maxRules?: number;
  /** Conditions for `when` (default: `conditions()`). */
  readonly conditions?: fc.Arbitrary<unknown>;
  /** Names `appliesTo.names` globs are drawn from. */
  readonly nameGlobs?: readonly string[];
  readonly groups?: readonly string[];
  readonly tags?: readonly string[];
}

/**
 * JSON-Logic conditions over everything a policy reads — headers, endpoint, scopes, claims, issuer,
 * client name and version, capabilities, primitive groups, percentage rollouts — nested up to
 * three levels with `!`, `and`, `or`. Values come from the same small domains as `callers()`.
 */
export function conditions(): fc.Arbitrary<unknown> {
  return fc.letrec<{ condition: unknown }>((tie) => ({
    condition: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      fc.constantFrom('x-canary', 'x-tool-version').chain((name) => fc.constantFrom('1', '2').map((value) => ({ '==': [{ var: `request.headers.${name}` }, value] }))),
      fc.constantFrom(...capabilityPaths).map((path) => ({ has: path })),
      fc.constantFrom('/mcp/admin/**', '/mcp/*', '/mcp').map((pattern) => ({ glob: [pattern, { var: 'request.endpoint' }] })),
      fc.constantFrom('read', 'admin').map((scope) => ({ in: [scope, { var: 'auth.scopes' }] })),
      fc.constantFrom('alice', 'bob').map((subject) => ({ '==': [{ var: 'auth.claims.sub' }, subject] })),
      fc.constantFrom('https://id.example.com', 'https://partner.example.org').map((issuer) => ({ '==': [{ var: 'auth.issuer' }, issuer] })),
      fc.constantFrom('cursor', 'vscode', 'claude-code').map((name) => ({ '==': [{ var: 'client.name' }, name] })),
      fc.constantFrom('canary', 'beta').map((group) => ({ in: [group, { var: 'primitive.groups' }] })),
      fc.constantFrom('>=', '<').map((op) => ({ sem_ver: [{ var: 'client.version' }, op, '1.0.0'] })),
      fc.constantFrom('cur', 'Vis').map((prefix) => ({ starts_with: [{ var: 'client.name' }, prefix] })),
      fc.constantFrom(10, 50).map((weight) => ({
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
      tie('condition').map((inner) => ({ '!': [inner] })),
      fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })),
      fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ or: items })),
    ),
  })).condition;
}

/** Valid policy documents (they compile), with rule ids `rule-0`, `rule-1`, … */
export function policyDocuments(options: PolicyDocumentOptions = {}): fc.Arbitrary<PolicyDocument> {
  const rule = fc.record(
    {
      effect: fc.constantFrom('allow' as const, 'deny' as const),
      appliesTo: fc.record(
        {
          kinds: fc.subarray(['tool' as const, 'prompt' as const, 'resource' as const, 'resourceTemplate' as const], { minLength: 1 }),
          groups: fc.subarray([...(options.groups ?? ['canary', 'beta', 'admin'])], { minLength: 1 }),
          tags: fc.subarray([...(options.tags ?? ['experimental', 'read-only'])], { minLength: 1 }),
          names: fc.subarray([...(options.nameGlobs ?? ['admin_*', 's*', '*'])], { minLength: 1 }),
        },
        { requiredKeys: [] },
      ),
      when: options.conditions ?? conditions(),
    },
    { requiredKeys: ['effect'] },
  );
  return fc
    .record({
      default: fc.constantFrom('allow' as const, 'deny' as const),
      enforceRequirements: fc.boolean(),
      rules: fc.array(rule, { maxLength: options.maxRules ?? 5 }),
    })
    .map((document) => ({
      version: 1 as const,
      ...document,
      rules: document.rules.map((item, index) => ({ id: `rule-${index}`, ...item })),
    }));
}

import fc from 'fast-check';
import type { PolicyDocument } from '../../src/core/policy/schema.js';

/**
 * Arbitraries shared by the adapters' property tests (test/sdk and test/server): small random
 * registries of annotated tools, policies over their groups and client names, and clients.
 */
export const clientNames = ['cursor', 'claude-code', 'vscode'];

export interface ArbitraryTool {
  readonly name: string;
  readonly groups: string[];
  readonly capabilities: string[];
}

export const registryArbitrary: fc.Arbitrary<ArbitraryTool[]> = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom('t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'),
    groups: fc.subarray(['beta', 'admin']),
    capabilities: fc.subarray(['sampling', 'roots']),
  }),
  { selector: (tool) => tool.name, minLength: 1, maxLength: 8 },
);

const ruleArbitrary = fc.record({
  effect: fc.constantFrom('allow' as const, 'deny' as const),
  groups: fc.subarray(['beta', 'admin'], { minLength: 1 }),
  client: fc.option(fc.constantFrom(...clientNames), { nil: undefined }),
});

export const policyArbitrary: fc.Arbitrary<PolicyDocument> = fc
  .record({ default: fc.constantFrom('allow' as const, 'deny' as const), rules: fc.array(ruleArbitrary, { maxLength: 3 }) })
  .map(({ default: fallback, rules }) => ({
    version: 1,
    default: fallback,
    rules: rules.map((rule, index) => ({
      id: `r${index}`,
      effect: rule.effect,
      appliesTo: { groups: rule.groups },
      ...(rule.client === undefined ? {} : { when: { '==': [{ var: 'client.name' }, rule.client] } }),
    })),
  }));

export const clientArbitrary = fc.record({ name: fc.constantFrom(...clientNames), capabilities: fc.subarray(['sampling', 'roots']) });

/** The `_meta` a generated tool registers with, in either SDK. */
export function toolMeta(tool: ArbitraryTool): { 'mcp-gate': { groups: string[]; requires: { capabilities: string[] } } } {
  return { 'mcp-gate': { groups: tool.groups, requires: { capabilities: tool.capabilities } } };
}

/** A client's declared capabilities, `{ sampling: {}, … }`. */
export function declaredCapabilities(names: readonly string[]): Record<string, object> {
  return Object.fromEntries(names.map((name) => [name, {}]));
}

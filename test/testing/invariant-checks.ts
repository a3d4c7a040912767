// The checks test/testing runs on both gates, each with its own McpServer and its own SDK's answers:
// check-gate-invariants.test.ts (mcp-gate/sdk) and server-invariants.test.ts (mcp-gate/server).
import fc from 'fast-check';
import { expect } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import {
  checkGateInvariants,
  createRegistryServer,
  GateInvariantError,
  policyDocuments,
  registries,
  registryMetadata,
  type AnyMcpServer,
  type CheckGateInvariantsOptions,
  type GateAdapter,
} from '../../src/testing/index.js';
import { propertyParameters } from '../properties/seed.js';
import { listOnlyPolicy } from './fixtures.js';

export async function failureOf(check: Promise<unknown>): Promise<GateInvariantError> {
  const error = await check.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GateInvariantError);
  return error as GateInvariantError;
}

/** 25 random registries under random policies, with and without pagination, `numRuns` runs each. */
export async function checkRandomRegistries(adapter: GateAdapter, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(registries(), policyDocuments(), fc.constantFrom(undefined, 1, 2), async (registry, policy, pageSize) => {
      await checkGateInvariants(() => createRegistryServer(registry, { adapter }), policy, {
        gate: { metadata: registryMetadata(registry, { adapter }), pageSize },
        numRuns,
        callersPerRun: 2,
        everyClientProfile: false,
      });
    }),
    propertyParameters(25),
  );
}

/** docs/testing.md's failing example: the error names the seed, one shrunk caller, the violation (`violation` starts it), the SDK's own not-found answer and a replay that reproduces it. */
export async function expectReadableFailure(createShopServer: () => AnyMcpServer, expected: { violation: string; unknownAnswer: string }): Promise<void> {
  const error = await failureOf(checkGateInvariants(createShopServer, listOnlyPolicy, { everyClientProfile: false, numRuns: 5 }));
  expect(error.seed).toBe(20261130);
  expect(error.counterexample).toHaveLength(1);
  expect(error.violations.some((line) => line.includes(expected.violation))).toBe(true);
  expect(error.message).toMatch(/^gate invariants failed after \d+ run\(s\) \(seed 20261130, shrunk \d+ time\(s\)\)\n/);
  expect(error.message).toContain(expected.unknownAnswer);
  expect(error.message).toContain(`replay: checkGateInvariants(createServer, policy, { seed: 20261130, path: ${JSON.stringify(error.path)} })`);
  const replayed = await failureOf(checkGateInvariants(createShopServer, listOnlyPolicy, { everyClientProfile: false, seed: error.seed, path: error.path! }));
  expect(replayed.counterexample).toEqual(error.counterexample);
}

// The one call the self-modifying server makes, which both McpServers answer alike.
interface ToolRegistrar {
  registerTool(name: string, config: Record<string, never>, run: () => Promise<{ content: [] }>): { update(updates: { description: string }): void };
}

/** A server whose `cleanup` tool updates the `victim` tool: the registry changes during ordinary traffic. */
export function selfModifyingServer<Server extends ToolRegistrar>(McpServer: new (info: { name: string; version: string }) => Server): () => Server {
  return () => {
    const server = new McpServer({ name: 'self-modifying', version: '1.0.0' });
    const victim = server.registerTool('victim', {}, async () => ({ content: [] }));
    server.registerTool('cleanup', {}, async () => {
      victim.update({ description: 'touched' });
      return { content: [] };
    });
    return server;
  };
}

export async function expectRegistryChangeReported(createServer: () => AnyMcpServer, violations: readonly string[]): Promise<void> {
  const error = await failureOf(checkGateInvariants(createServer, { version: 1, default: 'allow' }, { everyClientProfile: false, numRuns: 1 }));
  for (const violation of violations) expect(error.violations).toContain(violation);
}

/** A policy that denies every third evaluation must break listed ⇔ usable, hidden ≡ unknown or sequential vs concurrent. */
export async function expectFlakyPolicyReported(createServer: () => AnyMcpServer, options: Pick<CheckGateInvariantsOptions, 'gate'> = {}): Promise<void> {
  let evaluations = 0;
  const flaky = compilePolicy(
    { version: 1, default: 'allow', rules: [{ id: 'flaky', effect: 'deny', when: { flip: [] } }] },
    { operators: { flip: () => evaluations++ % 3 === 0 } },
  );
  const error = await failureOf(checkGateInvariants(createServer, flaky, { ...options, everyClientProfile: false, numRuns: 3 }));
  expect(error.violations.some((line) => /listed ⇔ usable|hidden ≡ unknown|sequential vs/.test(line))).toBe(true);
}

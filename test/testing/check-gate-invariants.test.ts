import fc from 'fast-check';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import {
  checkGateInvariants,
  createRegistryServer,
  GateInvariantError,
  policyDocuments,
  registries,
  registryMetadata,
} from '../../src/testing/index.js';
import { propertyParameters } from '../properties/seed.js';
import { createShopServer, demoPolicy, listOnlyPolicy } from './fixtures.js';

async function failureOf(check: Promise<unknown>): Promise<GateInvariantError> {
  const error = await check.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(GateInvariantError);
  return error as GateInvariantError;
}

describe('checkGateInvariants', () => {
  it('passes on the demo server under the demo policy, for every real client profile and random callers', async () => {
    const report = await checkGateInvariants(createDemoServer, demoPolicy, { gate: { metadata: demoMetadata }, numRuns: 15 });
    expect(report.callers).toBeGreaterThanOrEqual(42 + 15);
    expect(report.requests).toBeGreaterThan(1000);
  });

  it('passes on random servers under random policies, with and without pagination', async () => {
    await fc.assert(
      fc.asyncProperty(registries(), policyDocuments(), fc.constantFrom(undefined, 1, 2), async (registry, policy, pageSize) => {
        await checkGateInvariants(() => createRegistryServer(registry), policy, {
          gate: { metadata: registryMetadata(registry), pageSize },
          numRuns: 3,
          callersPerRun: 2,
          everyClientProfile: false,
        });
      }),
      propertyParameters(25),
    );
  });

  it('throws a readable error with the seed, the shrunk callers and a replay line', async () => {
    const error = await failureOf(checkGateInvariants(createShopServer, listOnlyPolicy, { everyClientProfile: false, numRuns: 5 }));
    expect(error.seed).toBe(20261130);
    expect(error.counterexample).toHaveLength(1);
    expect(error.violations.some((line) => line.includes('hidden ≡ unknown: "refund_order" is not listed, but call answers isError'))).toBe(true);
    expect(error.message).toMatch(/^gate invariants failed after \d+ run\(s\) \(seed 20261130, shrunk \d+ time\(s\)\)\n/);
    expect(error.message).toContain('an unknown name gets isError "MCP error -32602: Tool refund_order not found"');
    expect(error.message).toContain(`replay: checkGateInvariants(createServer, policy, { seed: 20261130, path: ${JSON.stringify(error.path)} })`);
    const replayed = await failureOf(checkGateInvariants(createShopServer, listOnlyPolicy, { everyClientProfile: false, seed: error.seed, path: error.path! }));
    expect(replayed.counterexample).toEqual(error.counterexample);
  });

  it('reports a server that changes its own registry during ordinary traffic', async () => {
    const createServer = () => {
      const server = new McpServer({ name: 'self-modifying', version: '1.0.0' });
      const victim = server.registerTool('victim', {}, async () => ({ content: [] }));
      server.registerTool('cleanup', {}, async () => {
        victim.update({ description: 'touched' });
        return { content: [] };
      });
      return server;
    };
    const error = await failureOf(checkGateInvariants(createServer, { version: 1, default: 'allow' }, { everyClientProfile: false, numRuns: 1 }));
    expect(error.violations).toContain('caller 1: registry unchanged: _registeredTools["victim"].description changed');
    expect(error.violations).toContain('caller 1: registry unchanged: the client received notifications/tools/list_changed during ordinary traffic');
  });

  it('reports a policy whose decisions change from one request to the next', async () => {
    let evaluations = 0;
    const flaky = compilePolicy(
      { version: 1, default: 'allow', rules: [{ id: 'flaky', effect: 'deny', when: { flip: [] } }] },
      { operators: { flip: () => evaluations++ % 3 === 0 } },
    );
    const error = await failureOf(checkGateInvariants(createDemoServer, flaky, { gate: { metadata: demoMetadata }, everyClientProfile: false, numRuns: 3 }));
    expect(error.violations.some((line) => /listed ⇔ usable|hidden ≡ unknown|sequential vs/.test(line))).toBe(true);
  });

  it('rejects options under which the invariants cannot hold, naming the option', async () => {
    await expect(checkGateInvariants(createDemoServer, demoPolicy, { gate: { denied: 'explain' } })).rejects.toThrow(
      'mcp-gate/testing: option "gate.denied" must be "hide": with "explain", hidden answers differ from unknown ones by design',
    );
    await expect(checkGateInvariants(createDemoServer, demoPolicy, { callersPerRun: 0 })).rejects.toThrow(
      'mcp-gate/testing: option "callersPerRun" must be a positive integer, got 0',
    );
    await expect(checkGateInvariants(() => ({}) as McpServer, demoPolicy, { everyClientProfile: false, numRuns: 1 })).rejects.toThrow(
      'mcp-gate/testing: createServer() must return an McpServer of @modelcontextprotocol/sdk 1.32.x or @modelcontextprotocol/server 2.4.x (no _registeredTools)',
    );
  });
});

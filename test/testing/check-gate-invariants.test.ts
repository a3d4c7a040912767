import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { checkGateInvariants } from '../../src/testing/index.js';
import { createShopServer, demoPolicy } from './fixtures.js';
import { checkRandomRegistries, expectFlakyPolicyReported, expectReadableFailure, expectRegistryChangeReported, selfModifyingServer } from './invariant-checks.js';

// Thousands of real requests each: well within the default timeout alone, but not always on a
// loaded 2-core machine running other files beside it. A bound, not a speed assertion.
const heavyCheckTimeout = 120_000;

describe('checkGateInvariants', () => {
  it(
    'passes on the demo server under the demo policy, for every real client profile and random callers',
    async () => {
      const report = await checkGateInvariants(createDemoServer, demoPolicy, { gate: { metadata: demoMetadata }, numRuns: 15 });
      expect(report.callers).toBeGreaterThanOrEqual(42 + 15);
      expect(report.requests).toBeGreaterThan(1000);
    },
    heavyCheckTimeout,
  );

  it(
    'passes on random servers under random policies, with and without pagination',
    async () => {
      await checkRandomRegistries('sdk', 3);
    },
    heavyCheckTimeout,
  );

  it('throws a readable error with the seed, the shrunk callers and a replay line', async () => {
    await expectReadableFailure(createShopServer, {
      violation: 'hidden ≡ unknown: "refund_order" is not listed, but call answers isError',
      unknownAnswer: 'an unknown name gets isError "MCP error -32602: Tool refund_order not found"',
    });
  });

  it('reports a server that changes its own registry during ordinary traffic', async () => {
    await expectRegistryChangeReported(selfModifyingServer(McpServer), [
      'caller 1: registry unchanged: _registeredTools["victim"].description changed',
      'caller 1: registry unchanged: the client received notifications/tools/list_changed during ordinary traffic',
    ]);
  });

  it('reports a policy whose decisions change from one request to the next', async () => {
    await expectFlakyPolicyReported(createDemoServer, { gate: { metadata: demoMetadata } });
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

// Run by runners.test.ts with `node --import tsx --test`: the kit under node:test, no vitest in sight.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDemoServer, demoMetadata } from '../../../src/demo/demo-server.js';
import { checkGateInvariants, GateInvariantError } from '../../../src/testing/index.js';
import { createShopServer, demoPolicy, listOnlyPolicy } from '../fixtures.js';
import { createShopServerV2 } from '../server-fixtures.js';

test('the demo server keeps the gate invariants', async () => {
  const report = await checkGateInvariants(createDemoServer, demoPolicy, { gate: { metadata: demoMetadata }, numRuns: 3, everyClientProfile: false });
  assert.equal(report.runs, 3);
});

test('a policy that only hides from the list fails with a GateInvariantError', async () => {
  await assert.rejects(checkGateInvariants(createShopServer, listOnlyPolicy, { numRuns: 3, everyClientProfile: false }), GateInvariantError);
});

test('on mcp-gate/server too, the same policy fails with a GateInvariantError', async () => {
  await assert.rejects(checkGateInvariants(createShopServerV2, listOnlyPolicy, { numRuns: 3, everyClientProfile: false }), GateInvariantError);
});

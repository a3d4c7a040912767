// Run by test/testing/runners.test.ts under block-v1-sdk.mjs: mcp-gate/testing must import and
// check a v2 server without the v1 SDK, and name the package where a feature needs it.
import { readFileSync } from 'node:fs';
import { createDemoServerV2 } from '../server-fixtures.js';

const demoPolicy = JSON.parse(readFileSync(new URL('../../../policies/demo.json', import.meta.url), 'utf8')) as unknown;

const kit = await import('../../../src/testing/index.js');
const report = await kit.checkGateInvariants(createDemoServerV2, demoPolicy as never, { numRuns: 2, everyClientProfile: false });
console.log(`v2 check: adapter ${report.adapter}, ${report.requests} requests`);
const caller = kit.profileCallers()[0]!;
for (const [feature, use] of [
  ['capabilitiesSeenByServer', () => kit.capabilitiesSeenByServer(caller)],
  ['createRegistryServer', () => kit.createRegistryServer({ tools: [], prompts: [], resources: [], templates: [] } as never)],
] as const) {
  try {
    use();
    console.log(`${feature}: no error`);
  } catch (error) {
    console.log(`${feature}: ${(error as Error).name}: ${(error as Error).message}`);
  }
}
await kit.connectAsCaller({} as never, caller).catch((error: Error) => console.log(`connectAsCaller: ${error.name}: ${error.message}`));

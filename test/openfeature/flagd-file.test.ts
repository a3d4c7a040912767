// The real flagd path: @openfeature/flagd-provider in in-process mode reading an offline flag file
// with flagd's own file sync (fs.watchFile, which polls about every 5 s) and flagd's evaluator.
// Node keeps one stat watcher per path, at the interval of the first watchFile on it: watching
// the file first at 100 ms (as `mcp-gate serve --flagd-poll-interval` does, src/cli/flagd-provider.ts)
// makes the provider's own listener see each change within 100 ms instead of 5 s.
import { mkdtempSync, rmSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagdProvider } from '@openfeature/flagd-provider';
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { Policy } from '../../src/core/policy/types.js';
import { PolicyFlagError, readPolicyFlag, watchPolicyFlag } from '../../src/openfeature/index.js';
import { createGate } from '../../src/sdk/index.js';
import { connectInMemory } from '../sdk/helpers.js';
import { allowEverything, createRecorder, createServer, hideBeta, policyFlagKey } from './helpers.js';

const directory = mkdtempSync(join(tmpdir(), 'mcp-gate-flagd-'));
const flagFile = join(directory, 'flags.json');
const domain = 'mcp-gate-openfeature-flagd-file';

const ignoreChange = () => undefined;

afterAll(async () => {
  unwatchFile(flagFile, ignoreChange);
  await OpenFeature.clearProviders();
  rmSync(directory, { recursive: true, force: true });
});

function writeFlagFile(policy: unknown): void {
  const flags = { [policyFlagKey]: { state: 'ENABLED', defaultVariant: 'current', variants: { current: policy } } };
  writeFileSync(flagFile, JSON.stringify({ flags }, null, 2));
}

describe('watchPolicyFlag with flagd in-process and an offline flag file', () => {
  it('applies the file, follows a change of it to a real SDK Client, and keeps the policy on an invalid document', { timeout: 60_000 }, async () => {
    writeFlagFile(hideBeta);
    watchFile(flagFile, { interval: 100, persistent: false }, ignoreChange);
    await OpenFeature.setProviderAndWait(domain, new FlagdProvider({ resolverType: 'in-process', offlineFlagSourcePath: flagFile }));
    const client = OpenFeature.getClient(domain);
    expect((await readPolicyFlag(client, policyFlagKey)).revision).toBe(compilePolicy(hideBeta).revision);

    const policyGate = createGate({ policy: { version: 1, default: 'deny', rules: [] } });
    const server = createServer();
    policyGate.install(server);
    const mcp = await connectInMemory(server);
    const errors = createRecorder<PolicyFlagError>(20_000);
    const policies = createRecorder<Policy>(20_000);
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onError: errors.push, onPolicy: policies.push });
    await watch.ready;
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable']);

    writeFlagFile(allowEverything);
    let applied = await policies.next();
    while (applied.revision !== compilePolicy(allowEverything).revision) applied = await policies.next();
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable', 'beta']);

    writeFlagFile({ version: 1, default: 'allow', rules: [{ id: 'typo', effect: 'alow' }] });
    const error = await errors.next();
    expect([error.flagKey, error.problem, error.issues.map((issue) => issue.path)]).toEqual([policyFlagKey, 'invalid_document', ['rules[0].effect']]);
    expect(policyGate.policy.revision).toBe(compilePolicy(allowEverything).revision);
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['stable', 'beta']);

    await watch.close();
    await mcp.close();
  });
});

import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { Policy } from '../../src/core/policy/types.js';
import { watchPolicyFlag } from '../../src/openfeature/index.js';
import { createGate } from '../../src/server/index.js';
import { registerEverything, registryPolicyDocument } from '../server/fixtures.js';
import { listen, postModern } from '../server/http.js';
import { createInMemoryClient, createRecorder, hideEverything, policyFlag, policyFlagKey } from './helpers.js';

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const toolNames = (answer: { body: { result?: Record<string, unknown> } }) => (answer.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name);

describe('watchPolicyFlag on a mcp-gate/server gate', () => {
  it('swaps the policy stateless HTTP requests are answered with', async () => {
    const { client, provider } = await createInMemoryClient(policyFlag(registryPolicyDocument));
    const policyGate = createGate({ policy: hideEverything });
    const endpoint = await listen(
      createMcpHandler((request) => {
        const server = new McpServer({ name: 'flagged', version: '1.0.0' });
        policyGate.install(server, { request });
        registerEverything(server);
        return server;
      }),
    );
    const policies = createRecorder<Policy>();
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onPolicy: policies.push });
    try {
      await watch.ready;
      expect(toolNames(await postModern(endpoint, 'tools/list', {}))).toEqual(['echo', 'report']);
      provider.putConfiguration(policyFlag(hideEverything));
      const target = compilePolicy(hideEverything).revision;
      while ((await policies.next()).revision !== target);
      expect(toolNames(await postModern(endpoint, 'tools/list', {}))).toEqual([]);
    } finally {
      await watch.close();
      await endpoint.close();
    }
  });
});

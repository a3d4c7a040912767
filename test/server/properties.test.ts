import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate } from '../../src/server/index.js';
import { clientArbitrary, declaredCapabilities, policyArbitrary, registryArbitrary, toolMeta, type ArbitraryTool } from '../adapter/arbitraries.js';
import { propertyParameters } from '../properties/seed.js';
import { comparable, inProcess, postModern } from './http.js';

function register(server: McpServer, tools: readonly ArbitraryTool[]): void {
  for (const tool of tools) server.registerTool(tool.name, { _meta: toolMeta(tool) }, async () => ({ content: [{ type: 'text', text: `ran ${tool.name}` }] }));
}

describe('gate (mcp-gate/server) properties over random registries, policies and envelopes', () => {
  it('listed ⇔ callable, hidden ≡ never registered, sequential ≡ concurrent', async () => {
    await fc.assert(
      fc.asyncProperty(registryArbitrary, policyArbitrary, clientArbitrary, async (tools, policy, client) => {
        const gated = inProcess(
          createMcpHandler((request) => {
            const server = new McpServer({ name: 'p', version: '1' });
            register(server, tools);
            gate(server, { policy, request });
            return server;
          }),
        );
        const options = { capabilities: declaredCapabilities(client.capabilities), clientInfo: { name: client.name, version: '1' } };
        const list = await postModern(gated, 'tools/list', {}, options);
        const listed = new Set((list.body.result!['tools'] as { name: string }[]).map((tool) => tool.name));
        const names = [...tools.map((tool) => tool.name), 'never-registered'];
        const sequential = [];
        for (const name of names) sequential.push(comparable(await postModern(gated, 'tools/call', { name, arguments: {} }, options)));
        const concurrent = await Promise.all(names.map(async (name) => comparable(await postModern(gated, 'tools/call', { name, arguments: {} }, options))));
        expect(concurrent).toEqual(sequential);

        const baseline = inProcess(
          createMcpHandler(() => {
            const server = new McpServer({ name: 'p', version: '1' }, { capabilities: { tools: {} } });
            register(
              server,
              tools.filter((tool) => listed.has(tool.name)),
            );
            return server;
          }),
        );
        for (const [index, name] of names.entries()) {
          const answer = sequential[index] as { result?: unknown };
          expect(answer.result !== undefined, name).toBe(listed.has(name));
          expect(answer, name).toEqual(comparable(await postModern(baseline, 'tools/call', { name, arguments: {} }, options)));
        }
        await Promise.all([gated.close(), baseline.close()]);
      }),
      propertyParameters(40),
    );
  });
});

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gate } from '../../src/sdk/index.js';
import { clientArbitrary, declaredCapabilities, policyArbitrary, registryArbitrary, toolMeta, type ArbitraryTool } from '../adapter/arbitraries.js';
import { propertyParameters } from '../properties/seed.js';
import { serverInfo } from './fixtures.js';
import { connectInMemory } from './helpers.js';

function register(server: McpServer, tools: readonly ArbitraryTool[]): void {
  for (const tool of tools) server.registerTool(tool.name, { _meta: toolMeta(tool) }, async () => ({ content: [{ type: 'text', text: `ran ${tool.name}` }] }));
}

function snapshot(server: McpServer) {
  const tools = (server as unknown as { _registeredTools: Record<string, object> })._registeredTools;
  return Object.entries(tools).map(([name, tool]) => ({ name, tool, json: JSON.stringify(tool) }));
}

describe('gate (properties over random registries, policies and contexts)', () => {
  it('listed ⇔ callable, hidden ≡ unknown, registry untouched, sequential ≡ interleaved', async () => {
    await fc.assert(
      fc.asyncProperty(registryArbitrary, policyArbitrary, clientArbitrary, async (tools, policy, clientInfo) => {
        const server = new McpServer(serverInfo);
        gate(server, { policy });
        register(server, tools);
        const before = snapshot(server);
        const capabilities = declaredCapabilities(clientInfo.capabilities);
        const gated = await connectInMemory(server, capabilities, clientInfo.name);
        const listed = new Set((await gated.client.listTools()).tools.map((tool) => tool.name));

        const names = [...tools.map((tool) => tool.name), 'never-registered'];
        const sequential: unknown[] = [];
        for (const name of names) sequential.push(await gated.client.callTool({ name }));
        const interleaved = await Promise.all(names.map((name) => gated.client.callTool({ name })));
        expect(interleaved).toEqual(sequential);

        // A server on which only the listed tools were ever registered (it still serves tools, possibly none).
        const baselineServer = new McpServer(serverInfo, { capabilities: { tools: {} } });
        register(
          baselineServer,
          tools.filter((tool) => listed.has(tool.name)),
        );
        const baseline = await connectInMemory(baselineServer, capabilities, clientInfo.name);
        for (const [index, name] of names.entries()) {
          const result = sequential[index] as { isError?: boolean };
          expect(result.isError !== true).toBe(listed.has(name));
          expect(result).toEqual(await baseline.client.callTool({ name }));
        }

        const after = snapshot(server);
        expect(after.map(({ name, json }) => [name, json])).toEqual(before.map(({ name, json }) => [name, json]));
        after.forEach(({ tool }, index) => expect(tool).toBe(before[index]!.tool));
        await gated.close();
        await baseline.close();
      }),
      propertyParameters(40),
    );
  });
});

import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { gate } from '../../src/server/index.js';
import { propertyParameters } from '../properties/seed.js';
import { comparable, inProcess, postModern } from './http.js';

// The arbitraries of test/sdk/properties.test.ts, run against the v2 adapter over createMcpHandler.
const clientNames = ['cursor', 'claude-code', 'vscode'];

const registryArbitrary = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom('t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'),
    groups: fc.subarray(['beta', 'admin']),
    capabilities: fc.subarray(['sampling', 'roots']),
  }),
  { selector: (tool) => tool.name, minLength: 1, maxLength: 8 },
);

const policyArbitrary = fc
  .record({
    default: fc.constantFrom('allow' as const, 'deny' as const),
    rules: fc.array(
      fc.record({
        effect: fc.constantFrom('allow' as const, 'deny' as const),
        groups: fc.subarray(['beta', 'admin'], { minLength: 1 }),
        client: fc.option(fc.constantFrom(...clientNames), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
  })
  .map(
    ({ default: fallback, rules }): PolicyDocument => ({
      version: 1,
      default: fallback,
      rules: rules.map((rule, index) => ({
        id: `r${index}`,
        effect: rule.effect,
        appliesTo: { groups: rule.groups },
        ...(rule.client === undefined ? {} : { when: { '==': [{ var: 'client.name' }, rule.client] } }),
      })),
    }),
  );

const clientArbitrary = fc.record({ name: fc.constantFrom(...clientNames), capabilities: fc.subarray(['sampling', 'roots']) });

type Tool = { name: string; groups: string[]; capabilities: string[] };

function register(server: McpServer, tools: readonly Tool[]): void {
  for (const tool of tools) {
    const annotation = { groups: tool.groups, requires: { capabilities: tool.capabilities } };
    server.registerTool(tool.name, { _meta: { 'mcp-gate': annotation } }, async () => ({ content: [{ type: 'text', text: `ran ${tool.name}` }] }));
  }
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
        const options = { capabilities: Object.fromEntries(client.capabilities.map((name) => [name, {}])), clientInfo: { name: client.name, version: '1' } };
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
            register(server, tools.filter((tool) => listed.has(tool.name)));
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

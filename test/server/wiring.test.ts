import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { PolicyOptionError } from '../../src/core/errors.js';
import { createGate, gate } from '../../src/server/index.js';
import { registerEverything, registryPolicy } from './fixtures.js';
import { listen, postModern, type Endpoint } from './http.js';

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const toolNames = (answer: { body: { result?: Record<string, unknown> } }) => (answer.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name);

describe('gate (mcp-gate/server) wiring', () => {
  it('gates primitives registered after gate(), including handlers the SDK installs lazily', async () => {
    const policyGate = createGate({ policy: registryPolicy });
    endpoint = await listen(
      createMcpHandler((request) => {
        const server = new McpServer({ name: 'late', version: '1.0.0' });
        policyGate.install(server, { request });
        registerEverything(server);
        return server;
      }),
    );
    expect(toolNames(await postModern(endpoint, 'tools/list', {}))).toEqual(['echo', 'report']);
    const completion = await postModern(endpoint, 'completion/complete', { ref: { type: 'ref/prompt', name: 'admin-brief' }, argument: { name: 'topic', value: '' } });
    expect(completion.body.error).toEqual({ code: -32602, message: 'Prompt admin-brief not found' });
  });

  it('never writes the registry: registrations are the same objects, enabled as before, after gated traffic', async () => {
    const servers: McpServer[] = [];
    endpoint = await listen(
      createMcpHandler((request) => {
        const server = new McpServer({ name: 'observed', version: '1.0.0' });
        registerEverything(server);
        const registry = server as unknown as { _registeredTools: Record<string, { enabled: boolean }> };
        const before = Object.entries(registry._registeredTools);
        gate(server, { policy: registryPolicy, request });
        servers.push(server);
        (server as unknown as { before: typeof before }).before = before;
        return server;
      }),
    );
    await postModern(endpoint, 'tools/list', {});
    await postModern(endpoint, 'tools/call', { name: 'admin-reset', arguments: {} });
    for (const server of servers) {
      const { before, _registeredTools } = server as unknown as { before: [string, { enabled: boolean }][]; _registeredTools: Record<string, { enabled: boolean }> };
      expect(Object.entries(_registeredTools)).toEqual(before);
      for (const [name, tool] of before) expect(_registeredTools[name]).toBe(tool);
      expect(before.every(([, tool]) => tool.enabled)).toBe(true);
    }
  });

  it('refuses to gate one server twice', () => {
    const server = new McpServer({ name: 'twice', version: '1.0.0' });
    gate(server, { policy: registryPolicy });
    expect(() => gate(server, { policy: registryPolicy })).toThrow(new PolicyOptionError('mcp-gate: this McpServer is already gated'));
    expect(() => gate(server, { policy: registryPolicy })).toThrow(PolicyOptionError);
  });

  it('names a bad option', () => {
    const server = new McpServer({ name: 'options', version: '1.0.0' });
    const badOption = () => gate(server, { policy: registryPolicy, missingCapability: 'reveal' as never });
    expect(badOption).toThrow(new PolicyOptionError('mcp-gate: option "missingCapability" must be "hide" or "error", got "reveal"'));
    expect(badOption).toThrow(PolicyOptionError);
  });

  it('rejects invalid annotations at install time, naming the primitive and the field', () => {
    const server = new McpServer({ name: 'bad-meta', version: '1.0.0' });
    server.registerTool('broken', { _meta: { 'mcp-gate': { groups: 'admin' } } }, () => ({ content: [] }));
    expect(() => gate(server, { policy: registryPolicy })).toThrow(
      /invalid metadata of tool "broken"[\s\S]*_meta\["mcp-gate"\]\.groups: Invalid input: expected array, received string/,
    );
  });
});

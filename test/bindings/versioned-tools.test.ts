import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { answerOf, bindings, type Binding, type BindingServer, type RegisteredHandle } from './bindings.js';

// docs/sdk.md "Versioned tools": canary version for one client, stable for everyone else.
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary-only-for-canary', effect: 'deny', appliesTo: { tags: ['canary'] }, when: { '!=': [{ var: 'client.name' }, 'canary-client'] } }],
});

interface VersionedServer {
  readonly server: BindingServer;
  readonly stable: RegisteredHandle;
  readonly canary: RegisteredHandle;
}

function createVersionedServer(binding: Binding, gated = true): VersionedServer {
  const server = binding.createServer();
  if (gated) binding.gate(server, { policy });
  const stable = server.registerTool(
    'search__1.4.0',
    { description: 'stable search', inputSchema: { q: z.string() }, _meta: { 'mcp-gate': { version: '1.4.0' } } },
    async ({ q }) => ({ content: [{ type: 'text', text: `v1:${String(q)}` }] }),
  );
  const canary = server.registerTool(
    'search__2.0.0',
    { description: 'canary search', inputSchema: { q: z.string(), limit: z.number().optional() }, _meta: { 'mcp-gate': { version: '2.0.0', tags: ['canary'] } } },
    async ({ q }) => ({ content: [{ type: 'text', text: `v2:${String(q)}` }] }),
  );
  server.registerTool('other', {}, async () => ({ content: [] }));
  return { server, stable, canary };
}

const described = (tools: { name: string; description?: string | undefined }[]) => tools.map((tool) => [tool.name, tool.description]);

describe.each(bindings)('$name (versioned tools)', (binding) => {
  it('shows exactly one version under the public name per request and routes calls to it', async () => {
    const canary = await binding.connect(createVersionedServer(binding).server, 'canary-client');
    const regular = await binding.connect(createVersionedServer(binding).server, 'regular-client');
    const canaryTools = (await canary.client.listTools()).tools;
    const regularTools = (await regular.client.listTools()).tools;
    expect(described(canaryTools)).toEqual([
      ['search', 'canary search'],
      ['other', undefined],
    ]);
    expect(described(regularTools)).toEqual([
      ['search', 'stable search'],
      ['other', undefined],
    ]);
    expect(Object.keys(regularTools[0]!.inputSchema.properties ?? {})).toEqual(['q']);
    expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v2:x' }]);
    expect((await regular.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
    await canary.close();
    await regular.close();
  });

  it('answers an internal versioned key exactly as the ungated server answers a name never registered', async () => {
    const regular = await binding.connect(createVersionedServer(binding).server, 'regular-client');
    const ungated = await binding.connect(createVersionedServer(binding, false).server, 'regular-client');
    const internal = await answerOf(regular.client.callTool({ name: 'search__1.4.0', arguments: { q: 'x' } }));
    const unknown = JSON.stringify(await answerOf(ungated.client.callTool({ name: 'never-registered', arguments: { q: 'x' } })));
    expect(JSON.stringify(internal)).toBe(unknown.replaceAll('never-registered', 'search__1.4.0'));
    const invalid = await regular.client.callTool({ name: 'search', arguments: { q: 1 } });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid)).toContain('Invalid arguments for tool search:');
    expect(JSON.stringify(invalid)).not.toContain('search__');
    await regular.close();
    await ungated.close();
  });

  describe('disabled versions', () => {
    it('serves the enabled version when the preferred one was disabled before the client connected', async () => {
      const versioned = createVersionedServer(binding);
      versioned.canary.disable();
      const canary = await binding.connect(versioned.server, 'canary-client');
      expect(described((await canary.client.listTools()).tools)).toEqual([
        ['search', 'stable search'],
        ['other', undefined],
      ]);
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
      await canary.close();
    });

    it('follows enable() and disable() of a version while the session is open', async () => {
      const versioned = createVersionedServer(binding);
      const canary = await binding.connect(versioned.server, 'canary-client');
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v2:x' }]);
      versioned.canary.disable();
      expect(described((await canary.client.listTools()).tools)).toEqual([
        ['search', 'stable search'],
        ['other', undefined],
      ]);
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
      versioned.canary.enable();
      expect(described((await canary.client.listTools()).tools)).toEqual([
        ['search', 'canary search'],
        ['other', undefined],
      ]);
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v2:x' }]);
      await canary.close();
    });

    it('answers "disabled" as the SDK does when every version the caller may see is disabled', async () => {
      const versioned = createVersionedServer(binding);
      versioned.stable.disable();
      const regular = await binding.connect(versioned.server, 'regular-client');
      expect(described((await regular.client.listTools()).tools)).toEqual([['other', undefined]]);
      const answer = JSON.stringify(await answerOf(regular.client.callTool({ name: 'search', arguments: { q: 'x' } })));
      expect(answer).toContain('Tool search disabled');
      expect(answer).not.toContain('search__');
      await regular.close();
    });

    it('serves the next version once the highest is removed, and the new one once it is registered again', async () => {
      const versioned = createVersionedServer(binding);
      const canary = await binding.connect(versioned.server, 'canary-client');
      versioned.canary.remove();
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v1:x' }]);
      versioned.server.registerTool(
        'search__2.0.0',
        { description: 'canary search again', inputSchema: { q: z.string() }, _meta: { 'mcp-gate': { version: '2.0.0', tags: ['canary'] } } },
        async ({ q }) => ({ content: [{ type: 'text', text: `v2 again:${String(q)}` }] }),
      );
      expect(described((await canary.client.listTools()).tools)).toEqual([
        ['search', 'canary search again'],
        ['other', undefined],
      ]);
      expect((await canary.client.callTool({ name: 'search', arguments: { q: 'x' } })).content).toEqual([{ type: 'text', text: 'v2 again:x' }]);
      await canary.close();
    });
  });
});

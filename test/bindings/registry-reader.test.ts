import fc from 'fast-check';
import type { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServer as ServerMcpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { PrimitiveSource } from '../../src/adapter/catalog.js';
import { registryFields } from '../../src/adapter/registry-reader.js';
import { readInternals as readSdkInternals, readSources as readSdkSources } from '../../src/sdk/server-internals.js';
import { readInternals as readServerInternals, readSources as readServerSources } from '../../src/server/server-internals.js';
import { createRegistryServer, readRegistry, registries, type AnyMcpServer, type GateAdapter } from '../../src/testing/index.js';
import { propertyParameters } from '../properties/seed.js';

/** Each binding's registry reading, as its gate does it, next to the kit's. */
const adapters: readonly { adapter: GateAdapter; gateReads: (server: AnyMcpServer) => PrimitiveSource[] }[] = [
  { adapter: 'sdk', gateReads: (server) => [...readSdkSources(readSdkInternals(server as SdkMcpServer), new WeakMap())] },
  { adapter: 'server', gateReads: (server) => [...readServerSources(readServerInternals(server as ServerMcpServer))] },
];

type Switchable = Record<string, { disable(): void }>;

/** Disables the registrations whose bit in `mask` is set, walking the four registries in order. */
function disableSome(server: AnyMcpServer, mask: number): Set<string> {
  const disabled = new Set<string>();
  let index = 0;
  for (const field of registryFields) {
    for (const [key, registration] of Object.entries((server as unknown as Record<string, Switchable>)[field]!)) {
      if ((mask >>> (index++ % 31)) & 1) {
        registration.disable();
        disabled.add(`${field}:${key}`);
      }
    }
  }
  return disabled;
}

const fieldOf = { tool: '_registeredTools', prompt: '_registeredPrompts', resource: '_registeredResources', resourceTemplate: '_registeredResourceTemplates' } as const;

describe.each(adapters)('registry reader ($adapter)', ({ adapter, gateReads }) => {
  it('builds real servers whose registries hold exactly the generated registrations', async () => {
    await fc.assert(
      fc.asyncProperty(registries(), async (registry) => {
        const read = readRegistry(await createRegistryServer(registry, { adapter }));
        expect(read.filter((primitive) => primitive.kind === 'tool').map((tool) => tool.key)).toEqual(registry.tools.map((tool) => tool.key));
        expect(read.filter((primitive) => primitive.kind === 'prompt').map((prompt) => prompt.key)).toEqual(registry.prompts.map((prompt) => prompt.name));
        expect(read.filter((primitive) => primitive.kind === 'resource').map((resource) => resource.uri)).toEqual(registry.resources.map((resource) => resource.uri));
        expect(read.filter((primitive) => primitive.kind === 'resourceTemplate').map((template) => [template.uriTemplate, template.lists])).toEqual(
          registry.templates.map((template) => [template.uriTemplate, template.lists]),
        );
      }),
      propertyParameters(60),
    );
  });

  it('reads every registration with its enabled flag, as the kit reads the enabled ones', async () => {
    await fc.assert(
      fc.asyncProperty(registries(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (registry, mask) => {
        const server = await createRegistryServer(registry, { adapter });
        const disabled = disableSome(server, mask);
        const sources = gateReads(server);
        const expectedCount = registry.tools.length + registry.prompts.length + registry.resources.length + registry.templates.length;
        expect(sources).toHaveLength(expectedCount);
        for (const source of sources) expect(source.enabled).toBe(!disabled.has(`${fieldOf[source.kind]}:${source.key}`));
        const enabled = sources.filter((source) => source.enabled);
        const kit = readRegistry(server);
        expect(kit.map((primitive) => [primitive.kind, primitive.key, primitive.name])).toEqual(enabled.map((source) => [source.kind, source.key, source.name]));
        // v1 prompts' `_meta` is captured by the installed gate (SDK 1.32 drops it): compare the rest.
        for (const [at, primitive] of kit.entries()) if (adapter === 'server' || primitive.kind !== 'prompt') expect(primitive.meta).toBe(enabled[at]!.meta);
      }),
      propertyParameters(60),
    );
  });
});

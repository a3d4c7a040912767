import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RegistrySdk } from './registries.js';

/** `createRegistryServer` on McpServer 1.32: schemas as zod raw shapes. */
export const sdkRegistryServer: RegistrySdk<McpServer> = {
  createServer: (info) => new McpServer(info),
  registerTool(server, { name, config, requiresText, run }) {
    server.registerTool(name, { ...config, inputSchema: requiresText ? { text: z.string() } : undefined }, run);
  },
  registerPrompt(server, { name, config, completeTopic, get }) {
    server.registerPrompt(name, { ...config, argsSchema: { topic: completeTopic ? completable(z.string(), completeTopic) : z.string().optional() } }, get);
  },
  registerResource(server, { name, uri, config, read }) {
    server.registerResource(name, uri, config, read);
  },
  registerTemplate(server, { name, uriTemplate, callbacks, config, read }) {
    server.registerResource(name, new ResourceTemplate(uriTemplate, callbacks), config, read);
  },
};

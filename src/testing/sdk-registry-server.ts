import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RegistrySdk } from './registries.js';
import { v1Sdk } from './v1-sdk.js';

const feature = "createRegistryServer with adapter 'sdk'";

// Built once and shared by every server (checks create many); zod schemas are immutable.
const textArguments = { text: z.string() };
const optionalTopic = { topic: z.string().optional() };

/** `createRegistryServer` on McpServer 1.32: schemas as zod raw shapes. */
export const sdkRegistryServer: RegistrySdk<McpServer> = {
  createServer: (info) => new (v1Sdk(feature).mcp.McpServer)(info),
  registerTool(server, { name, config, requiresText, run }) {
    server.registerTool(name, { ...config, inputSchema: requiresText ? textArguments : undefined }, run);
  },
  registerPrompt(server, { name, config, completeTopic, get }) {
    server.registerPrompt(name, { ...config, argsSchema: completeTopic ? { topic: v1Sdk(feature).completable.completable(z.string(), completeTopic) } : optionalTopic }, get);
  },
  registerResource(server, { name, uri, config, read }) {
    server.registerResource(name, uri, config, read);
  },
  registerTemplate(server, { name, uriTemplate, callbacks, config, read }) {
    server.registerResource(name, new (v1Sdk(feature).mcp.ResourceTemplate)(uriTemplate, callbacks), config, read);
  },
};

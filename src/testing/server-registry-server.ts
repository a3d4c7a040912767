import { completable, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { RegistrySdk } from './registries.js';

// Built once and shared by every server: checks create a server per request, and building the
// schemas again each time was a large part of that. zod schemas are immutable.
const textArguments = z.object({ text: z.string() });
const optionalTopic = z.object({ topic: z.string().optional() });

/** `createRegistryServer` on McpServer 2.4: schemas as `z.object`; loaded only when asked for, so v1 users need no v2 SDK. */
export const serverRegistryServer: RegistrySdk<McpServer> = {
  createServer: (info) => new McpServer(info),
  registerTool(server, { name, config, requiresText, run }) {
    server.registerTool(name, { ...config, inputSchema: requiresText ? textArguments : undefined }, run);
  },
  registerPrompt(server, { name, config, completeTopic, get }) {
    server.registerPrompt(name, { ...config, argsSchema: completeTopic ? z.object({ topic: completable(z.string(), completeTopic) }) : optionalTopic }, get);
  },
  registerResource(server, { name, uri, config, read }) {
    server.registerResource(name, uri, config, read);
  },
  registerTemplate(server, { name, uriTemplate, callbacks, config, read }) {
    server.registerResource(name, new ResourceTemplate(uriTemplate, callbacks), config, read);
  },
};

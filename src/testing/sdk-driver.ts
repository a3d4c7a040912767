import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { createGate, type GateOptions } from '../sdk/index.js';
import { connectAsCaller } from './connect.js';
import type { GateDriver } from './driver.js';
import type { CallerRequests, ProbeMethod } from './probe.js';
import { diffRegistry, fingerprintRegistry, readRegistry } from './registry.js';

type Params = Record<string, unknown>;
type RequestOptions = { timeout: number };

// The SDK Client's own methods, so results go through the client's validation as a user's would.
const clientMethods: Record<ProbeMethod, (client: Client, params: Params, options: RequestOptions) => Promise<unknown>> = {
  'tools/list': (client, params, options) => client.listTools(params, options),
  'prompts/list': (client, params, options) => client.listPrompts(params, options),
  'resources/list': (client, params, options) => client.listResources(params, options),
  'resources/templates/list': (client, params, options) => client.listResourceTemplates(params, options),
  'tools/call': (client, params, options) => client.callTool(params as Parameters<Client['callTool']>[0], undefined, options),
  'prompts/get': (client, params, options) => client.getPrompt(params as Parameters<Client['getPrompt']>[0], options),
  'resources/read': (client, params, options) => client.readResource(params as Parameters<Client['readResource']>[0], options),
  'completion/complete': (client, params, options) => client.complete(params as Parameters<Client['complete']>[0], options),
};

function clientRequests(client: Client, options: RequestOptions): CallerRequests {
  return { request: async (method, params) => (await clientMethods[method](client, params, options)) as Record<string, unknown> };
}

/** mcp-gate/sdk on McpServer 1.32: one server instance per caller, a real SDK Client over the in-memory transport. */
export const sdkDriver: GateDriver = {
  adapter: 'sdk',
  uris: {
    expand: (uriTemplate, variables) => new UriTemplate(uriTemplate).expand(variables),
    matches: (uriTemplate, uri) => new UriTemplate(uriTemplate).match(uri) !== null,
    // 1.32 answers with the URI as `new URL(uri)` spells it.
    echoed: (uri) => (URL.canParse(uri) ? new URL(uri).toString() : undefined),
  },
  servable: (caller) => caller,
  createGate(createServer, gateOptions, settings) {
    const gate = createGate(gateOptions as unknown as GateOptions);
    return {
      get policy() {
        return gate.policy;
      },
      async connect(caller) {
        const server = (await createServer()) as McpServer;
        const registry = readRegistry(server);
        const before = fingerprintRegistry(server);
        gate.install(server);
        const connection = await connectAsCaller(server, caller);
        return {
          requests: clientRequests(connection.client, { timeout: settings.timeout }),
          registry,
          changes: () => [
            ...diffRegistry(before, fingerprintRegistry(server)),
            ...connection.listChanges.map((method) => `the client received ${method} during ordinary traffic`),
          ],
          close: () => connection.close(),
        };
      },
    };
  },
};

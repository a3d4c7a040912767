import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { createGate, type Gate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import type { Caller } from '../../src/testing/index.js';

/** A Gate that installs nothing: the host then serves the plain SDK (the ungated baseline). */
export function createNoGate(): Gate {
  const policy = compilePolicy({ version: 1, default: 'allow' });
  return { policy, setPolicy: async () => undefined, install: () => undefined };
}

export interface DemoHost {
  readonly host: HttpHost;
  /** Every McpServer the host built, in order. */
  readonly servers: McpServer[];
}

/** The demo server on 127.0.0.1 behind `gate` (stateful sessions), recording the servers it builds. */
export async function startDemoHost(gate: Gate, stateless = false): Promise<DemoHost> {
  const servers: McpServer[] = [];
  const host = await startHttpHost({
    createServer: () => {
      const server = createDemoServer();
      servers.push(server);
      return server;
    },
    gate,
    port: 0,
    stateless,
  });
  return { host, servers };
}

export function createDemoGate(policy: PolicyDocument, pageSize?: number): Gate {
  return createGate({ policy, metadata: demoMetadata, pageSize });
}

export interface HttpCallerClient {
  readonly client: Client;
  close(): Promise<void>;
}

/** A real SDK client over Streamable HTTP, sending the caller's headers on every request. */
export async function connectOverHttp(base: URL, caller: Caller): Promise<HttpCallerClient> {
  const url = new URL(caller.endpoint || base.pathname, base);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...caller.headers } } });
  const client = new Client({ name: caller.client.name, version: caller.client.version }, { capabilities: caller.client.capabilities as ClientCapabilities });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

type Lists = { tools: string[]; prompts: string[]; resources: string[]; templates: string[] };

/** Every page of every list, as names (resources as URIs). */
export async function listEverything(client: Client): Promise<Lists> {
  const all = async <T>(fetchPage: (cursor?: string) => Promise<{ nextCursor?: string | undefined; items: T[] }>): Promise<T[]> => {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await fetchPage(cursor);
      items.push(...result.items);
      if ((cursor = result.nextCursor) === undefined) return items;
    }
    throw new Error('more than 100 pages');
  };
  const params = (cursor?: string) => (cursor === undefined ? {} : { cursor });
  return {
    tools: (await all((cursor) => client.listTools(params(cursor)).then((page) => ({ ...page, items: page.tools })))).map((tool) => tool.name),
    prompts: (await all((cursor) => client.listPrompts(params(cursor)).then((page) => ({ ...page, items: page.prompts })))).map((prompt) => prompt.name),
    resources: (await all((cursor) => client.listResources(params(cursor)).then((page) => ({ ...page, items: page.resources })))).map((resource) => resource.uri),
    templates: (await all((cursor) => client.listResourceTemplates(params(cursor)).then((page) => ({ ...page, items: page.resourceTemplates })))).map(
      (template) => template.name,
    ),
  };
}

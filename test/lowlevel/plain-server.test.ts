// A plain low-level Server of @modelcontextprotocol/sdk 1.x, gated with mcp-gate/lowlevel and
// reached by the real SDK Client over Streamable HTTP on 127.0.0.1, with a header that changes
// per request. Its handlers record every request they get: nothing of a hidden primitive may
// reach them, and hidden names are answered byte for byte as the same server without them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyOptionError } from '../../src/core/errors.js';
import { createGate, gate } from '../../src/lowlevel/index.js';
import { serveSessions } from '../adapter/bindings.js';

const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
};

const overlay = { metadata: { 'prompt:secret-*': { groups: ['secret'] }, 'resource:test://docs/secret': { groups: ['secret'] } } };

/** Every request the gated servers' handlers received: `method name-or-uri`. */
const handled: string[] = [];

function setHandlers(server: Server, withSecrets: boolean, record = (line: string) => void handled.push(line)): void {
  const tools = [{ name: 'public-tool', inputSchema: { type: 'object' as const } }];
  if (withSecrets) tools.push({ name: 'secret-tool', inputSchema: { type: 'object' as const }, _meta: { 'mcp-gate': { groups: ['secret'] } } } as never);
  const prompts = [{ name: 'public-prompt' }, ...(withSecrets ? [{ name: 'secret-prompt' }] : [])];
  const resources = [{ uri: 'test://docs/public', name: 'public-doc' }, ...(withSecrets ? [{ uri: 'test://docs/secret', name: 'secret-doc' }] : [])];
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    record(`tools/call ${request.params.name}`);
    if (!tools.some((tool) => tool.name === request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return { content: [{ type: 'text', text: `ran ${request.params.name}` }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    record(`prompts/get ${request.params.name}`);
    if (!prompts.some((prompt) => prompt.name === request.params.name))
      throw new McpError(ErrorCode.InvalidParams, `Prompt ${request.params.name} not found`, { name: request.params.name });
    return { messages: [] };
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    record(`resources/read ${request.params.uri}`);
    if (!resources.some((resource) => resource.uri === request.params.uri)) throw new Error(`no resource ${request.params.uri}`);
    return { contents: [{ uri: request.params.uri, text: 'text' }] };
  });
}

const capabilities = { capabilities: { tools: {}, prompts: {}, resources: {} } };

/** The header the next request carries; the client's fetch reads it per request. */
let role = 'visitor';

type Served = Awaited<ReturnType<typeof serveSessions>>;

/** A Streamable HTTP host on 127.0.0.1 with one low-level Server per session, made by `build`. */
const serve = (build: () => Server): Promise<Served> => serveSessions(build);

const clients: Client[] = [];

async function connect(served: Served): Promise<{ client: Client; raw(method: string, params?: Record<string, unknown>): Promise<string> }> {
  const transport = new StreamableHTTPClientTransport(served.url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-role': role } }),
  });
  const client = new Client({ name: 'plain-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const received: string[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    received.push(JSON.stringify(message));
    deliver(message);
  };
  return {
    client,
    async raw(method, params) {
      const before = received.length;
      await client.request({ method, ...(params ? { params } : {}) } as never, ResultSchema).catch(() => undefined);
      const answer = received
        .slice(before)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((message) => 'result' in message || 'error' in message);
      const { id: _id, ...rest } = answer ?? {};
      return JSON.stringify(rest);
    },
  };
}

const lowLevelGate = createGate({ policy, overlay });
let gatedBefore: Served;
let gatedAfter: Served;
let reference: Served;

beforeAll(async () => {
  // Gated before its handlers are set, and after: both are gated the same.
  gatedBefore = await serve(() => {
    const server = new Server({ name: 'plain', version: '1.0.0' }, capabilities);
    lowLevelGate.install(server);
    setHandlers(server, true);
    return server;
  });
  gatedAfter = await serve(() => {
    const server = new Server({ name: 'plain', version: '1.0.0' }, capabilities);
    setHandlers(server, true);
    lowLevelGate.install(server);
    return server;
  });
  reference = await serve(() => {
    const server = new Server({ name: 'plain', version: '1.0.0' }, capabilities);
    setHandlers(server, false, () => undefined);
    return server;
  });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([gatedBefore, gatedAfter, reference].map((served) => served.close()));
});

const names = (items: { name: string }[]) => items.map((item) => item.name);

describe('gate (low-level Server)', () => {
  it.each([
    ['before', () => gatedBefore],
    ['after', () => gatedAfter],
  ])('filters lists per request by its header, gated %s its handlers were set', async (_when, served) => {
    const { client } = await connect(served());
    role = 'visitor';
    expect(names((await client.listTools()).tools)).toEqual(['public-tool']);
    expect(names((await client.listPrompts()).prompts)).toEqual(['public-prompt']);
    expect(names((await client.listResources()).resources)).toEqual(['public-doc']);
    role = 'admin';
    expect(names((await client.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    expect(names((await client.listPrompts()).prompts)).toEqual(['public-prompt', 'secret-prompt']);
    expect(names((await client.listResources()).resources)).toEqual(['public-doc', 'secret-doc']);
  });

  it('answers hidden names byte for byte as the server without them, and its handlers never hear of them', async () => {
    const gated = await connect(gatedBefore);
    const plain = await connect(reference);
    role = 'visitor';
    handled.length = 0;
    const requests: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'secret-tool', arguments: {} }],
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'test://docs/secret' }],
      ['tools/list', {}],
    ];
    for (const [method, params] of requests) expect(await gated.raw(method, params), method).toBe(await plain.raw(method, params));
    // The gated server's handlers heard only probes, never a hidden name.
    expect(handled.filter((line) => line.includes('secret'))).toEqual([]);
    expect(handled.map((line) => line.replace(/[0-9a-f]{16}/, 'TOKEN'))).toEqual([
      'tools/call mcp-gate-probe-TOKEN',
      'prompts/get mcp-gate-probe-TOKEN',
      'resources/read test://mcp-gate-probe.invalid/TOKEN',
    ]);
  });

  it('lets an admin request reach the handler', async () => {
    const { client } = await connect(gatedAfter);
    role = 'admin';
    handled.length = 0;
    expect(await client.callTool({ name: 'secret-tool', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'ran secret-tool' }] });
    expect(handled).toEqual(['tools/call secret-tool']);
  });

  it('refuses a Server that is already connected or already gated', async () => {
    const server = new Server({ name: 'plain', version: '1.0.0' }, capabilities);
    gate(server, { policy });
    expect(() => gate(server, { policy })).toThrow(new PolicyOptionError('mcp-gate/lowlevel: this Server is already gated'));
    const connected = new Server({ name: 'plain', version: '1.0.0' }, capabilities);
    await connected.connect(new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }));
    expect(() => gate(connected, { policy })).toThrow(
      new PolicyOptionError('mcp-gate/lowlevel: gate the Server before connect(): a request it answered before would not have been gated'),
    );
    await connected.close();
  });
});

// Every binding of the gate, serving one registry behind one policy over Streamable HTTP on
// 127.0.0.1 (one server per session), for test/adapter/bindings.test.ts: McpServer of
// @modelcontextprotocol/sdk 1.32 (mcp-gate/sdk), McpServer of @modelcontextprotocol/server 2.4
// (mcp-gate/server, 2025-era sessions), and the wire binding in front of a low-level Server
// (mcp-gate/lowlevel). A client sends the `x-role` header its test sets per request.
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as LowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
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
import { McpServer as McpServerV2, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { PolicyDocument } from '../../src/index.js';
import { createGate as createLowLevelGate } from '../../src/lowlevel/index.js';
import { createGate as createSdkGate } from '../../src/sdk/index.js';
import { createGate as createServerGate } from '../../src/server/index.js';
import { listen } from '../server/http.js';

/** The registry every binding serves: a public and a secret tool and prompt, the secret ones in group `secret`. */
export const tools = ['public-tool', 'secret-tool'] as const;
export const prompts = ['public-prompt', 'secret-prompt'] as const;
/** Resources by name; the URI is `test://docs/<name>`. */
export const resources = ['public-doc', 'secret-doc'] as const;
export const uriOf = (name: string) => `test://docs/${name}`;
const annotationOf = (name: string) => (name.startsWith('secret') ? { 'mcp-gate': { groups: ['secret'] } } : undefined);

/** One binding serving the registry: where, and its gate's setPolicy. */
export interface Served {
  readonly url: URL;
  setPolicy(next: PolicyDocument): Promise<void>;
  close(): Promise<void>;
}

export interface Binding {
  readonly name: string;
  serve(policy: PolicyDocument): Promise<Served>;
}

/** A node:http host on 127.0.0.1 giving each new session a server of its own from `build` (test/lowlevel uses it too). */
export async function serveSessions(build: () => { connect(transport: StreamableHTTPServerTransport): Promise<void> }): Promise<{ url: URL; close(): Promise<void> }> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer((request, response) => {
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing) return void existing.handleRequest(request, response);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void transports.set(id, transport) });
    void build()
      .connect(transport)
      .then(() => transport.handleRequest(request, response));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`),
    async close() {
      await Promise.all([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const answer = (name: string) => ({ content: [{ type: 'text' as const, text: `ran ${name}` }] });
const readAnswer = (uri: string) => ({ contents: [{ uri, text: `read ${uri}` }] });
const promptAnswer = (name: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `prompt ${name}` } }] });

const sdkBinding: Binding = {
  name: 'mcp-gate/sdk (McpServer 1.32)',
  async serve(policy) {
    const gate = createSdkGate({ policy });
    const host = await serveSessions(() => {
      const server = new McpServerV1({ name: 'bindings', version: '1.0.0' });
      gate.install(server);
      for (const name of tools) server.registerTool(name, { description: name, _meta: annotationOf(name) }, async () => answer(name));
      for (const name of prompts) server.registerPrompt(name, { description: name, _meta: annotationOf(name) } as never, () => promptAnswer(name));
      for (const name of resources) server.registerResource(name, uriOf(name), { _meta: annotationOf(name) }, (uri) => readAnswer(uri.href));
      return server;
    });
    return { url: host.url, setPolicy: (next) => gate.setPolicy(next), close: host.close };
  },
};

const serverBinding: Binding = {
  name: 'mcp-gate/server (McpServer 2.4, 2025-era sessions)',
  async serve(policy) {
    const gate = createServerGate({ policy });
    const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
    const endpoint = await listen(async (request: Request) => {
      const existing = sessions.get(request.headers.get('mcp-session-id') ?? '');
      if (existing) return existing.handleRequest(request);
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
      });
      const server = new McpServerV2({ name: 'bindings', version: '1.0.0' });
      gate.install(server);
      for (const name of tools) server.registerTool(name, { description: name, _meta: annotationOf(name) }, () => answer(name));
      for (const name of prompts) server.registerPrompt(name, { description: name, _meta: annotationOf(name) }, () => promptAnswer(name));
      for (const name of resources) server.registerResource(name, uriOf(name), { _meta: annotationOf(name) }, (uri) => readAnswer(uri.href));
      await server.connect(transport);
      return transport.handleRequest(request);
    });
    return {
      url: new URL(`${endpoint.url}/mcp`),
      setPolicy: (next) => gate.setPolicy(next),
      async close() {
        await Promise.all([...sessions.values()].map((transport) => transport.close()));
        await endpoint.close();
      },
    };
  },
};

/** The wire binding in process: a low-level Server whose own handlers answer unknown names as McpServer 1.32 does. */
const lowLevelBinding: Binding = {
  name: 'mcp-gate/lowlevel (the wire binding)',
  async serve(policy) {
    const gate = createLowLevelGate({ policy });
    const host = await serveSessions(() => {
      const server = new LowLevelServer(
        { name: 'bindings', version: '1.0.0' },
        { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } } },
      );
      gate.install(server);
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: tools.map((name) => ({ name, description: name, inputSchema: { type: 'object' as const }, _meta: annotationOf(name) })),
      }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        const name = request.params.name;
        if (!(tools as readonly string[]).includes(name)) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
        return answer(name);
      });
      server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: prompts.map((name) => ({ name, description: name, _meta: annotationOf(name) })) }));
      server.setRequestHandler(GetPromptRequestSchema, (request) => {
        const name = request.params.name;
        if (!(prompts as readonly string[]).includes(name)) throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
        return promptAnswer(name);
      });
      server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resources.map((name) => ({ uri: uriOf(name), name, _meta: annotationOf(name) })) }));
      server.setRequestHandler(ReadResourceRequestSchema, (request) => {
        const uri = request.params.uri;
        if (!resources.some((name) => uriOf(name) === uri)) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found`);
        return readAnswer(uri);
      });
      return server;
    });
    return { url: host.url, setPolicy: (next) => gate.setPolicy(next), close: host.close };
  },
};

export const bindings: readonly Binding[] = [sdkBinding, serverBinding, lowLevelBinding];

/** A client of one session; `role` is the `x-role` header of its next requests. */
export interface Session {
  readonly client: Client;
  role: string;
  /** One request's answer as the wire carried it, without its id: `{"result":…}` or `{"error":…}`. */
  raw(method: string, params: Record<string, unknown>): Promise<string>;
}

export async function connect(served: Served, role: string): Promise<Session> {
  const session = { role } as Session & { client: Client };
  const transport = new StreamableHTTPClientTransport(served.url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), 'x-role': session.role } }),
  });
  const client = new Client({ name: 'bindings-test', version: '1.0.0' });
  await client.connect(transport);
  const received: string[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    received.push(JSON.stringify(message));
    deliver(message);
  };
  return Object.assign(session, {
    client,
    async raw(method: string, params: Record<string, unknown>) {
      const before = received.length;
      await client.request({ method, params } as never, ResultSchema).catch(() => undefined);
      const message = received
        .slice(before)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((candidate) => 'result' in candidate || 'error' in candidate);
      const { id: _id, ...rest } = message ?? {};
      return JSON.stringify(rest);
    },
  });
}

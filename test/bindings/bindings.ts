import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as ServerMcpServer } from '@modelcontextprotocol/server';
import type { Policy } from '../../src/core/policy/types.js';
import { gate as gateSdk } from '../../src/sdk/index.js';
import { gate as gateServer } from '../../src/server/index.js';

/*
 * One behavioural suite, every binding (hono runs one router suite over every router): a test
 * written against `Binding` runs on mcp-gate/sdk (McpServer 1.32) and mcp-gate/server
 * (McpServer 2.4, a 2025-11-25 session, the era in which one server instance outlives a request).
 * A real SDK Client over the in-memory transport talks to both.
 */

type TextResult = { content: { type: 'text'; text: string }[] };

/** What both SDKs return from a registration and what the gate must follow: update, enable, disable, remove. */
export interface RegisteredHandle {
  update(updates: Record<string, unknown>): void;
  enable(): void;
  disable(): void;
  remove(): void;
}

/** The part of McpServer 1.32 and 2.4 these tests register through; both take zod 4 raw shapes. */
export interface BindingServer {
  registerTool(name: string, config: Record<string, unknown>, callback: (args: Record<string, unknown>) => Promise<TextResult>): RegisteredHandle;
  registerPrompt(name: string, config: Record<string, unknown>, callback: () => { messages: { role: 'user'; content: { type: 'text'; text: string } }[] }): RegisteredHandle;
  registerResource(name: string, uri: string, config: Record<string, unknown>, read: (uri: URL) => Promise<{ contents: { uri: string; text: string }[] }>): RegisteredHandle;
  close(): Promise<void>;
}

export interface GateReports {
  readonly errors: Error[];
}

export interface Connected {
  readonly client: Client;
  close(): Promise<void>;
}

export interface Binding {
  /** The adapter's package name, used as the suite's title. */
  readonly name: 'mcp-gate/sdk' | 'mcp-gate/server';
  createServer(): BindingServer;
  /** Gates `server`; errors the gate reports (never throws) are collected in `reports`. */
  gate(server: BindingServer, options: { policy: Policy; metadata?: Record<string, unknown> }): GateReports;
  connect(server: BindingServer, clientName?: string): Promise<Connected>;
}

const info = { name: 'bindings', version: '1.0.0' };

async function connectClient(server: { connect(transport: never): Promise<void> }, clientName: string): Promise<Connected> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([server.connect(serverTransport as never), client.connect(clientTransport)]);
  return {
    client,
    close: async () => {
      await client.close();
      await (server as unknown as BindingServer).close();
    },
  };
}

function reportsFor(options: Record<string, unknown>): { reports: GateReports; options: Record<string, unknown> } {
  const errors: Error[] = [];
  return { reports: { errors }, options: { ...options, onError: (error: Error) => void errors.push(error) } };
}

export const sdkBinding: Binding = {
  name: 'mcp-gate/sdk',
  createServer: () => new SdkMcpServer(info) as unknown as BindingServer,
  gate(server, gateOptions) {
    const { reports, options } = reportsFor(gateOptions);
    gateSdk(server as unknown as SdkMcpServer, options as never);
    return reports;
  },
  connect: (server, clientName = 'test-client') => connectClient(server as unknown as SdkMcpServer as never, clientName),
};

export const serverBinding: Binding = {
  name: 'mcp-gate/server',
  createServer: () => new ServerMcpServer(info) as unknown as BindingServer,
  gate(server, gateOptions) {
    const { reports, options } = reportsFor(gateOptions);
    gateServer(server as unknown as ServerMcpServer, options as never);
    return reports;
  },
  connect: (server, clientName = 'test-client') => connectClient(server as unknown as ServerMcpServer as never, clientName),
};

export const bindings: readonly Binding[] = [sdkBinding, serverBinding];

/** A call's answer as a comparable value: the result, or the JSON-RPC error's code and message. */
export async function answerOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await promise };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { error: { code, message } };
  }
}

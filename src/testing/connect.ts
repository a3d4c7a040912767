import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from './callers.js';
import { v1Sdk } from './v1-sdk.js';

/** A real SDK Client connected to a server as one caller. */
export interface CallerConnection {
  readonly client: Client;
  /** Methods of `notifications/*\/list_changed` the client received. */
  readonly listChanges: readonly string[];
  close(): Promise<void>;
}

/**
 * The server side of an in-memory pair that attaches the caller's HTTP request (headers, URL)
 * and auth info to every message, as the Streamable HTTP transport and an auth middleware
 * would. Over stdio (`endpoint: ''`) nothing is attached.
 */
class CallerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #inner: InMemoryTransport;

  constructor(inner: InMemoryTransport, caller: Caller) {
    this.#inner = inner;
    const extra = callerExtra(caller);
    inner.onmessage = (message) => this.onmessage?.(message, extra);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function callerExtra(caller: Caller): MessageExtraInfo {
  const extra: MessageExtraInfo = {};
  if (caller.endpoint !== '') {
    const url = new URL(caller.endpoint, 'http://127.0.0.1');
    extra.requestInfo = { headers: { ...caller.headers }, url };
  }
  if (caller.auth) {
    extra.authInfo = { token: 'mcp-gate-testing', clientId: caller.auth.clientId, scopes: [...caller.auth.scopes], extra: { ...caller.auth.claims } };
  }
  return extra;
}

/** Connects a real Client, declaring the caller's name, version and capabilities in `initialize`. */
export async function connectAsCaller(server: McpServer, caller: Caller): Promise<CallerConnection> {
  const sdk = v1Sdk('connectAsCaller');
  const [clientSide, serverSide] = sdk.inMemory.InMemoryTransport.createLinkedPair();
  const client = new sdk.client.Client(
    { name: caller.client.name, version: caller.client.version },
    { capabilities: structuredClone(caller.client.capabilities) as ClientCapabilities },
  );
  const listChanges: string[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method.endsWith('/list_changed')) listChanges.push(notification.method);
  };
  await server.connect(new CallerTransport(serverSide, caller));
  await client.connect(clientSide);
  return {
    client,
    listChanges,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

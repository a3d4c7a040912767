import { PolicyOptionError } from '../core/errors.js';
import { createMcpHandler, InMemoryTransport, UriTemplate, type AuthInfo, type JSONRPCMessage, type McpRequestContext, type McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createGate, type GateOptions } from '../server/index.js';
import type { Caller } from './callers.js';
import type { DriverConnection, GateDriver } from './driver.js';
import { modernEnvelope, modernTransmission } from './modern-requests.js';
import type { CallerRequests, ProbeMethod } from './probe.js';
import { diffRegistry, fingerprintRegistry, readRegistry, type AnyMcpServer, type RegistryFingerprint } from './registry.js';

type Message = Record<string, unknown>;

/** A JSON-RPC error answer, with the HTTP status it came with (none over stdio). */
class AnswerError extends Error {
  override name = 'AnswerError';
  constructor(
    message: string,
    readonly code: unknown,
    readonly data: unknown,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** Carries one request to the server and resolves with its response message (and HTTP status). */
interface Wire {
  exchange(request: Message, method: ProbeMethod, params: Message): Promise<{ response: Message; status?: number | undefined }>;
  close(): Promise<void>;
}

async function withTimeout<T>(promise: Promise<T>, timeout: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`mcp-gate/testing: ${what} got no answer within ${timeout} ms`)), timeout);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

const isListChange = (message: Message) => typeof message['method'] === 'string' && message['method'].endsWith('/list_changed');

/** The data of each Server-Sent Event in a body, parsed as JSON-RPC messages. */
function eventMessages(body: string): Message[] {
  return body
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data) as Message);
}

function authInfoOf(caller: Caller): AuthInfo | undefined {
  const auth = caller.auth;
  return auth && { token: 'mcp-gate-testing', clientId: auth.clientId, scopes: [...auth.scopes], extra: { ...auth.claims } };
}

/** `createMcpHandler`'s web-standard `fetch` face, in process: headers, URL path and auth as an HTTP server would pass them. */
function httpWire(factory: (request: McpRequestContext) => Promise<McpServer>, caller: Caller, listChanges: string[]): Wire {
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  const url = new URL(caller.endpoint, 'http://127.0.0.1').toString();
  const authInfo = authInfoOf(caller);
  return {
    async exchange(request, method, params) {
      const { headers } = modernTransmission(caller, method, params);
      const response = await handler.fetch(new Request(url, { method: 'POST', headers: { ...headers }, body: JSON.stringify(request) }), authInfo && { authInfo });
      const body = await response.text();
      let messages: Message[];
      try {
        messages = response.headers.get('content-type')?.startsWith('text/event-stream') ? eventMessages(body) : body === '' ? [] : [JSON.parse(body) as Message];
      } catch {
        throw new AnswerError(`HTTP ${response.status}: ${body.slice(0, 200)}`, undefined, undefined, response.status);
      }
      for (const message of messages) if (isListChange(message)) listChanges.push(String(message['method']));
      const answer = messages.find((message) => message['id'] === request['id']);
      if (answer === undefined) throw new AnswerError(`HTTP ${response.status} without a response to the request`, undefined, undefined, response.status);
      return { response: answer, status: response.status };
    },
    close: () => handler.close(),
  };
}

/** `serveStdio` over the SDK's in-memory transport: one pinned instance, no HTTP request, no auth. */
function stdioWire(factory: (request: McpRequestContext) => Promise<McpServer>, listChanges: string[]): Wire {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map<unknown, (response: Message) => void>();
  clientSide.onmessage = (message: JSONRPCMessage) => {
    const received = message as Message;
    if (isListChange(received)) listChanges.push(String(received['method']));
    if ('result' in received || 'error' in received) pending.get(received['id'])?.(received);
  };
  const started = clientSide.start();
  const served = serveStdio(factory, { transport: serverSide, legacy: 'reject' });
  return {
    async exchange(request) {
      await started;
      const answered = new Promise<Message>((resolve) => pending.set(request['id'], resolve));
      await clientSide.send(request as JSONRPCMessage);
      return { response: await answered };
    },
    async close() {
      await served.close();
      await clientSide.close();
    },
  };
}

function wireRequests(wire: Wire, caller: Caller, timeout: number): CallerRequests {
  let nextId = 0;
  return {
    async request(method, params) {
      const request = { jsonrpc: '2.0', id: ++nextId, method, params: { ...params, _meta: modernEnvelope(caller) } };
      const { response, status } = await withTimeout(wire.exchange(request, method, params), timeout, method);
      const error = response['error'] as { code?: unknown; message?: unknown; data?: unknown } | undefined;
      if (error) throw new AnswerError(String(error.message), error.code, error.data, status);
      return response['result'] as Message;
    },
  };
}

/**
 * mcp-gate/server on McpServer 2.4, protocol 2026-07-28: every request carries the caller's
 * envelope and gets a fresh server instance from `createMcpHandler`'s factory (stdio callers: one
 * instance pinned by `serveStdio`), gated with the factory's request context as the docs wire it.
 */
export const serverDriver: GateDriver = {
  adapter: 'server',
  uris: {
    expand: (uriTemplate, variables) => new UriTemplate(uriTemplate).expand(variables),
    matches: (uriTemplate, uri) => new UriTemplate(uriTemplate).match(uri) !== null,
    // 2.4 answers with the URI as sent (an unparsable one gets "Resource URI … is invalid" instead).
    echoed: (uri) => (URL.canParse(uri) ? uri : undefined),
  },
  // Over stdio there is no auth middleware, so nothing verified reaches the gate.
  servable: (caller) => (caller.endpoint === '' && caller.auth !== undefined ? { ...caller, auth: undefined } : caller),
  createGate(createServer, gateOptions, settings) {
    if (gateOptions['missingCapability'] === 'error') {
      throw new PolicyOptionError('mcp-gate/testing: option "gate.missingCapability" must be "hide": with "error", hidden answers differ from unknown ones by design');
    }
    if (gateOptions['request'] !== undefined) throw new PolicyOptionError('mcp-gate/testing: option "gate.request" is set by the kit, per request');
    const gate = createGate(gateOptions as unknown as GateOptions);
    return {
      get policy() {
        return gate.policy;
      },
      async connect(caller): Promise<DriverConnection> {
        const registry = readRegistry(await createServer());
        const served: { server: AnyMcpServer; before: RegistryFingerprint }[] = [];
        const listChanges: string[] = [];
        const factory = async (request: McpRequestContext) => {
          const server = (await createServer()) as McpServer;
          served.push({ server, before: fingerprintRegistry(server) });
          gate.install(server, { request });
          return server;
        };
        const wire = caller.endpoint === '' ? stdioWire(factory, listChanges) : httpWire(factory, caller, listChanges);
        return {
          requests: wireRequests(wire, caller, settings.timeout),
          registry,
          changes: () => [
            ...served.flatMap(({ server, before }) => diffRegistry(before, fingerprintRegistry(server))),
            ...listChanges.map((method) => `the client received ${method} during ordinary traffic`),
          ],
          close: () => wire.close(),
        };
      },
    };
  },
};

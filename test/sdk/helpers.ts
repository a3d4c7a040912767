import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../../src/core/context.js';
import type { PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import type { Decision, Policy } from '../../src/core/policy/types.js';

export type Rule = (context: RequestContext, primitive: PrimitiveMetadata) => boolean | string;

let revisions = 0;

/**
 * A hand-written Policy: `rule` returns true to allow, false or a reason to deny. Its context key
 * covers everything a test rule reads, as a compiled policy's `reads` would.
 */
export function createTestPolicy(rule: Rule, calls?: { evaluations: number }): Policy {
  const explain = (context: RequestContext, primitive: PrimitiveMetadata): Decision => {
    if (calls) calls.evaluations++;
    const verdict = rule(context, primitive);
    return verdict === true
      ? { allowed: true, reason: 'rule', ruleId: 'test', message: 'allowed by test rule' }
      : { allowed: false, reason: 'rule', ruleId: 'test', message: typeof verdict === 'string' ? verdict : 'denied by test rule' };
  };
  const contextKey = (context: RequestContext) =>
    JSON.stringify([context.request.headers, context.request.endpoint, context.request.sessionId ?? null, context.client, context.auth]);
  return {
    revision: `test-${++revisions}`,
    default: 'deny',
    rules: [{ id: 'test', effect: 'allow' }],
    reads: ['*'],
    callerSpecific: true,
    cacheable: true,
    readsFor: () => ['*'],
    contextKeyFor: () => contextKey,
    evaluate: (context, primitive) => explain(context, primitive).allowed,
    forContext: (context) => (primitive) => explain(context, primitive).allowed,
    explain,
  };
}

export const allowAll = (): Policy => createTestPolicy(() => true);

export function hideNames(...names: string[]): Policy {
  return createTestPolicy((_context, primitive) => !names.includes(primitive.name));
}

export interface Connected {
  client: Client;
  notifications: string[];
  close(): Promise<void>;
}

/** Connects a real SDK Client to `server` over an in-memory transport pair. */
export async function connectInMemory(server: McpServer, capabilities: ClientCapabilities = {}, name = 'test-client'): Promise<Connected> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1.2.3' }, { capabilities });
  const notifications: string[] = [];
  client.fallbackNotificationHandler = async (notification) => void notifications.push(notification.method);
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return {
    client,
    notifications,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Settles a promise into a comparable value: the result, or the error's code and message. */
export async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await promise };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

/** Lets queued messages and microtasks run; bounded, never a fixed sleep on a condition. */
export async function flush(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round++) await new Promise((resolve) => setImmediate(resolve));
}

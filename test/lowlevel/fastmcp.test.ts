// A real fastmcp 4.x server gated with mcp-gate/lowlevel, reached by the real SDK Client in
// memory (fastmcp's own connect(transport)). Hidden primitives are compared byte for byte with
// the same fastmcp server built without them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyOptionError } from '../../src/core/errors.js';
import { gateFastMCP, type DecisionEvent } from '../../src/lowlevel/index.js';

const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'client.name' }, 'admin'] } }],
};

// fastmcp passes `_meta` through for tools only: prompts, resources and templates are annotated by the overlay.
const overlay = {
  metadata: {
    'prompt:secret-*': { groups: ['secret'] },
    'resource:test://docs/secret': { groups: ['secret'] },
    'template:secret-*': { groups: ['secret'] },
  },
};

/** What fastmcp's own handlers ran: tool executions, prompt and resource loads. */
const ran: string[] = [];

function buildFastMCP(withSecrets: boolean): FastMCP {
  const server = new FastMCP({ name: 'lowlevel-test', version: '1.0.0', ping: { enabled: false }, roots: { enabled: false } });
  server.addTool({
    name: 'public-tool',
    description: 'public',
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => (ran.push(`tool:public-tool`), `echo ${text}`),
  });
  if (withSecrets) {
    server.addTool({
      name: 'secret-tool',
      description: 'secret',
      _meta: { 'mcp-gate': { groups: ['secret'] } },
      execute: async () => (ran.push('tool:secret-tool'), 'secret'),
    });
  }
  server.addPrompt({ name: 'public-prompt', description: 'public', load: async () => (ran.push('prompt:public-prompt'), 'hello') });
  if (withSecrets) server.addPrompt({ name: 'secret-prompt', description: 'secret', load: async () => (ran.push('prompt:secret-prompt'), 'secret') });
  server.addResource({ uri: 'test://docs/public', name: 'public-doc', mimeType: 'text/plain', load: async () => (ran.push('resource:public'), { text: 'public' }) });
  if (withSecrets)
    server.addResource({ uri: 'test://docs/secret', name: 'secret-doc', mimeType: 'text/plain', load: async () => (ran.push('resource:secret'), { text: 'secret' }) });
  server.addResourceTemplate({
    uriTemplate: 'test://public/{id}',
    name: 'public-template',
    mimeType: 'text/plain',
    arguments: [{ name: 'id', required: true }],
    load: async ({ id }) => (ran.push(`template:public:${id}`), { text: `public ${id}` }),
  });
  if (withSecrets) {
    server.addResourceTemplate({
      uriTemplate: 'test://secret/{id}',
      name: 'secret-template',
      mimeType: 'text/plain',
      arguments: [{ name: 'id', required: true }],
      load: async ({ id }) => (ran.push(`template:secret:${id}`), { text: `secret ${id}` }),
    });
  }
  return server;
}

interface Session {
  client: Client;
  /** Every message the client received, as the bytes on the wire. */
  received: string[];
  /** Sends a request and returns the bytes of its answer (result or error). */
  raw(method: string, params?: Record<string, unknown>): Promise<string>;
}

const sessions: Client[] = [];

async function connect(server: FastMCP, clientName: string): Promise<Session> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  sessions.push(client);
  const received: string[] = [];
  const deliver = clientTransport.onmessage!;
  clientTransport.onmessage = (message, extra) => {
    received.push(JSON.stringify(message));
    deliver(message, extra);
  };
  return {
    client,
    received,
    async raw(method, params) {
      const before = received.length;
      await client.request({ method, ...(params ? { params } : {}) } as never, ResultSchema).catch(() => undefined);
      // The answer is the last message received for this request; strip the id, which counts per session.
      const answer = received
        .slice(before)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((message) => 'result' in message || 'error' in message);
      const { id: _id, ...rest } = answer ?? {};
      return JSON.stringify(rest);
    },
  };
}

const decisions: DecisionEvent[] = [];
const errors: Error[] = [];
const gated = buildFastMCP(true);
const reference = buildFastMCP(false);
await gateFastMCP(gated, { policy, overlay, onDecision: (event) => decisions.push(event), onError: (error) => errors.push(error) });

afterAll(async () => {
  await Promise.all(sessions.map((client) => client.close()));
});

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

describe('gateFastMCP', () => {
  it('filters every list per request, by the caller', async () => {
    const visitor = await connect(gated, 'visitor');
    const admin = await connect(gated, 'admin');
    expect(names((await visitor.client.listTools()).tools)).toEqual(['public-tool']);
    expect(names((await admin.client.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    expect(names((await visitor.client.listPrompts()).prompts)).toEqual(['public-prompt']);
    expect(names((await admin.client.listPrompts()).prompts)).toEqual(['public-prompt', 'secret-prompt']);
    expect(names((await visitor.client.listResources()).resources)).toEqual(['public-doc']);
    expect(names((await admin.client.listResources()).resources)).toEqual(['public-doc', 'secret-doc']);
    expect(names((await visitor.client.listResourceTemplates()).resourceTemplates)).toEqual(['public-template']);
    expect(names((await admin.client.listResourceTemplates()).resourceTemplates)).toEqual(['public-template', 'secret-template']);
    // The gate's annotation is taken out of the list results.
    expect((await admin.client.listTools()).tools.find((tool) => tool.name === 'secret-tool')?._meta).toBeUndefined();
  });

  it('gates a request sent right after initialize, before fastmcp announces the session', async () => {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'visitor', version: '1.0.0' });
    sessions.push(client);
    // fastmcp's connect() resolves (and emits `connect`) only after polling for the client's capabilities.
    const announced = gated.connect(serverTransport);
    await client.connect(clientTransport);
    const early = client.listTools();
    expect(names((await early).tools)).toEqual(['public-tool']);
    await announced;
  });

  it('lists exactly what the same server without the hidden primitives lists', async () => {
    const visitor = await connect(gated, 'visitor');
    const plain = await connect(reference, 'visitor');
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      expect(await visitor.raw(method), method).toBe(await plain.raw(method));
    }
  });

  it('answers calls, gets, reads and completions of hidden primitives byte for byte as unknown names', async () => {
    const visitor = await connect(gated, 'visitor');
    const plain = await connect(reference, 'visitor');
    ran.length = 0;
    const requests: [string, Record<string, unknown>][] = [
      ['tools/call', { name: 'secret-tool', arguments: {} }],
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'test://secret/7' }],
      // fastmcp's "Resource not found" names every static resource: the gate names only the visible ones.
      ['resources/read', { uri: 'test://docs/secret' }],
      ['resources/read', { uri: 'test://nothing/here' }],
      // fastmcp subscribes to any URI; a hidden one as well, and fastmcp hears nothing of it.
      ['resources/subscribe', { uri: 'test://secret/7' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'x', value: '' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://secret/{id}' }, argument: { name: 'id', value: '' } }],
    ];
    for (const [method, params] of requests) {
      const hidden = await visitor.raw(method, params);
      expect(hidden, `${method} ${JSON.stringify(params)}`).toBe(await plain.raw(method, params));
      if (method !== 'resources/subscribe') expect(hidden).toContain('"error"');
      expect(hidden).not.toContain('test://docs/secret",');
    }
    // Nothing of a hidden primitive ran.
    expect(ran).toEqual([]);
  });

  it('lets the caller the policy allows use the same primitives', async () => {
    const admin = await connect(gated, 'admin');
    ran.length = 0;
    expect(await admin.client.callTool({ name: 'secret-tool', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'secret' }] });
    expect((await admin.client.readResource({ uri: 'test://secret/7' })).contents).toEqual([{ uri: 'test://secret/7', mimeType: 'text/plain', text: 'secret 7' }]);
    expect(ran).toEqual(['tool:secret-tool', 'template:secret:7']);
  });

  it('answers a visible call byte for byte as the ungated server', async () => {
    const visitor = await connect(gated, 'visitor');
    const plain = await connect(reference, 'visitor');
    const call = { name: 'public-tool', arguments: { text: 'hi' } };
    expect(await visitor.raw('tools/call', call)).toBe(await plain.raw('tools/call', call));
    const invalid = { name: 'public-tool', arguments: { text: 3 } };
    expect(await visitor.raw('tools/call', invalid)).toBe(await plain.raw('tools/call', invalid));
  });

  it('reports each decision with the request it was made for', async () => {
    decisions.length = 0;
    const visitor = await connect(gated, 'visitor');
    await visitor.raw('tools/call', { name: 'secret-tool', arguments: {} });
    const call = decisions.find((event) => event.method === 'tools/call');
    expect(call).toMatchObject({ primitive: { kind: 'tool', name: 'secret-tool' }, allowed: false, reason: 'rule', ruleId: 'secret-for-admins' });
    expect(call?.context.client.name).toBe('visitor');
    expect(typeof call?.requestId).toBe('number');
    expect(errors).toEqual([]);
  });

  it('tells a session about a list change only when the list it sees changed', async () => {
    const visitor = await connect(gated, 'visitor');
    const admin = await connect(gated, 'admin');
    await visitor.client.listTools();
    await admin.client.listTools();
    const adminNotified = new Promise<void>((resolve) => admin.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    gated.addTool({ name: 'secret-later', _meta: { 'mcp-gate': { groups: ['secret'] } }, execute: async () => 'later' });
    await adminNotified;
    expect(names((await admin.client.listTools()).tools)).toEqual(['public-tool', 'secret-later', 'secret-tool']);
    expect(names((await visitor.client.listTools()).tools)).toEqual(['public-tool']);
    expect(visitor.received.filter((text) => text.includes('list_changed'))).toEqual([]);
    expect(admin.received.filter((text) => text.includes('list_changed'))).toHaveLength(1);
  });

  it('refuses what it cannot gate: stateless HTTP, a FastMCP with sessions, a second gate', async () => {
    await expect(gated.start({ transportType: 'httpStream', httpStream: { port: 0, host: '127.0.0.1', stateless: true } })).rejects.toThrow(
      new PolicyOptionError('mcp-gate/lowlevel: a gated FastMCP cannot serve stateless HTTP: fastmcp announces no session there, so none would be gated'),
    );
    await expect(gateFastMCP(gated, { policy })).rejects.toThrow(new PolicyOptionError('mcp-gate/lowlevel: this FastMCP is already gated'));
    await expect(gateFastMCP(reference, { policy })).rejects.toThrow(
      new PolicyOptionError('mcp-gate/lowlevel: gate the FastMCP before start() or connect(): it already has sessions'),
    );
  });
});

// A real mcp-framework 0.2.x server gated with mcp-gate/lowlevel, reached by the real SDK Client
// through mcp-framework's own handleRequest() (its serverless path: a fetch Request in, a Response
// out, a fresh low-level Server per request) in place of the network. Hidden primitives are
// compared byte for byte with the same mcp-framework server built without them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { MCPServer } from 'mcp-framework';
import { afterAll, describe, expect, it } from 'vitest';
import { PolicyOptionError } from '../../src/core/errors.js';
import { gateMcpFramework, type DecisionEvent } from '../../src/lowlevel/index.js';
import { buildMcpFramework, overlay, policy, ran } from './mcp-framework-server.js';

interface Session {
  client: Client;
  /** Sets the x-role header of the requests sent from now on (undefined: none). */
  role: string | undefined;
  /** Sends a request and returns the bytes of its answer (result or error), without the id. */
  raw(method: string, params?: Record<string, unknown>): Promise<string>;
}

const clients: Client[] = [];

async function connect(server: MCPServer, role?: string): Promise<Session> {
  const bodies: string[] = [];
  const session: Session = {
    client: new Client({ name: 'tester', version: '1.0.0' }),
    role,
    async raw(method, params) {
      const before = bodies.length;
      await session.client.request({ method, ...(params ? { params } : {}) } as never, ResultSchema).catch(() => undefined);
      const answer = bodies
        .slice(before)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
        .find((message) => 'result' in message || 'error' in message);
      const { id: _id, ...rest } = answer ?? {};
      return JSON.stringify(rest);
    },
  };
  // mcp-framework's handleRequest stands in for the network: a real fetch Request in, its Response out.
  const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
    fetch: async (url, init) => {
      const headers = new Headers(init?.headers);
      if (session.role !== undefined) headers.set('x-role', session.role);
      const response = await server.handleRequest(new Request(url, { ...init, headers }));
      const text = await response.text();
      if (text !== '') bodies.push(text);
      return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
    },
  });
  await session.client.connect(transport);
  clients.push(session.client);
  return session;
}

const decisions: DecisionEvent[] = [];
const errors: Error[] = [];
const gated = buildMcpFramework(true);
const reference = buildMcpFramework(false);
await gateMcpFramework(gated, { policy, overlay, onDecision: (event) => decisions.push(event), onError: (error) => errors.push(error) });

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

describe('gateMcpFramework', () => {
  it('filters every list per request, by the request’s headers', async () => {
    const visitor = await connect(gated);
    const admin = await connect(gated, 'admin');
    expect(names((await visitor.client.listTools()).tools)).toEqual(['public-tool']);
    expect(names((await admin.client.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    expect(names((await visitor.client.listPrompts()).prompts)).toEqual(['public-prompt']);
    expect(names((await admin.client.listPrompts()).prompts)).toEqual(['public-prompt', 'secret-prompt']);
    expect(names((await visitor.client.listResources()).resources)).toEqual(['public-doc', 'public-template']);
    expect(names((await admin.client.listResources()).resources)).toEqual(['public-doc', 'public-template', 'secret-doc', 'secret-template']);
    expect(names((await visitor.client.listResourceTemplates()).resourceTemplates)).toEqual(['public-template']);
    expect(names((await admin.client.listResourceTemplates()).resourceTemplates)).toEqual(['public-template', 'secret-template']);
    // The gate's annotation is taken out of the list results.
    expect((await admin.client.listTools()).tools.find((tool) => tool.name === 'secret-tool')?._meta).toBeUndefined();
  });

  it('decides each request on its own headers, within one client', async () => {
    const session = await connect(gated);
    expect(names((await session.client.listTools()).tools)).toEqual(['public-tool']);
    session.role = 'admin';
    expect(names((await session.client.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    session.role = 'guest';
    expect(names((await session.client.listTools()).tools)).toEqual(['public-tool']);
  });

  it('lists exactly what the same server without the hidden primitives lists', async () => {
    const visitor = await connect(gated);
    const plain = await connect(reference);
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      expect(await visitor.raw(method), method).toBe(await plain.raw(method));
    }
  });

  it('answers calls, gets, reads and completions of hidden primitives byte for byte as unknown names', async () => {
    const visitor = await connect(gated);
    const plain = await connect(reference);
    ran.length = 0;
    const requests: [string, Record<string, unknown>][] = [
      // mcp-framework's "Unknown tool" names every tool it has: the gate names only the visible ones.
      ['tools/call', { name: 'secret-tool', arguments: {} }],
      ['tools/call', { name: 'never-registered', arguments: {} }],
      ['prompts/get', { name: 'secret-prompt' }],
      ['resources/read', { uri: 'test://docs/secret' }],
      ['resources/read', { uri: 'test://secret/1' }],
      ['resources/read', { uri: 'test://nothing/here' }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'x', value: '' } }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'test://secret/{id}' }, argument: { name: 'id', value: '' } }],
    ];
    for (const [method, params] of requests) {
      const hidden = await visitor.raw(method, params);
      expect(hidden, `${method} ${JSON.stringify(params)}`).toBe(await plain.raw(method, params));
      if (method !== 'completion/complete') expect(hidden).toContain('"error"');
      expect(hidden).not.toMatch(/secret-tool,|secret-prompt,|test:\/\/docs\/secret,|Available [a-z]+: .*secret/);
    }
    // Nothing of a hidden primitive ran.
    expect(ran).toEqual([]);
  });

  it('lets the caller the policy allows use the same primitives', async () => {
    const admin = await connect(gated, 'admin');
    ran.length = 0;
    expect(await admin.client.callTool({ name: 'secret-tool', arguments: {} })).toEqual({ content: [{ type: 'text', text: '"secret"' }] });
    expect((await admin.client.getPrompt({ name: 'secret-prompt' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'secret' } }]);
    expect((await admin.client.readResource({ uri: 'test://docs/secret' })).contents).toEqual([{ uri: 'test://docs/secret', mimeType: 'text/plain', text: 'secret-doc' }]);
    expect(ran).toEqual(['tool:secret-tool', 'prompt:secret-prompt', 'resource:secret-doc']);
  });

  it('answers a visible call byte for byte as the ungated server', async () => {
    const visitor = await connect(gated);
    const plain = await connect(reference);
    const call = { name: 'public-tool', arguments: { text: 'hi' } };
    expect(await visitor.raw('tools/call', call)).toBe(await plain.raw('tools/call', call));
    const invalid = { name: 'public-tool', arguments: { text: 3 } };
    expect(await visitor.raw('tools/call', invalid)).toBe(await plain.raw('tools/call', invalid));
    expect(await visitor.raw('tools/call', invalid)).toContain('"isError":true');
  });

  it('reports each decision with the request it was made for', async () => {
    decisions.length = 0;
    const visitor = await connect(gated, 'guest');
    await visitor.raw('tools/call', { name: 'secret-tool', arguments: {} });
    const call = decisions.find((event) => event.method === 'tools/call');
    expect(call).toMatchObject({ primitive: { kind: 'tool', name: 'secret-tool' }, allowed: false, reason: 'rule', ruleId: 'secret-for-admins' });
    expect(call?.context.request.headers['x-role']).toBe('guest');
    expect(call?.context.request.endpoint).toBe('/mcp');
    expect(errors).toEqual([]);
  });

  it('refuses what it cannot gate: http-stream, a started server, a second gate, something else', async () => {
    const httpStream = buildMcpFramework(false, { transport: { type: 'http-stream' } });
    await expect(gateMcpFramework(httpStream, { policy })).rejects.toThrow(/^mcp-gate\/lowlevel: a gated MCPServer cannot serve the http-stream transport: /);
    await expect(gateMcpFramework(gated, { policy })).rejects.toThrow(new PolicyOptionError('mcp-gate/lowlevel: this MCPServer is already gated'));
    await expect(gateMcpFramework(reference, { policy })).rejects.toThrow(
      new PolicyOptionError('mcp-gate/lowlevel: gate the MCPServer before start() or handleRequest(): it may have answered requests ungated'),
    );
    await expect(gateMcpFramework({ start: async () => {}, handleRequest: async () => new Response() }, { policy })).rejects.toThrow(
      /needs an MCPServer of the mcp-framework package/,
    );
  });
});

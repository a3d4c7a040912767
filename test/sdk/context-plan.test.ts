import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../src/index.js';
import { createGate, type DecisionEvent, type GateOptions } from '../../src/sdk/index.js';

// A gated request builds only the context its policy reads (src/adapter/context-plan.ts). These
// pin the consumers that read more: a policy swapped in later, and a decision log.

const headers = { 'x-region': 'eu', 'x-tier': 'free', accept: 'application/json', 'user-agent': 'node' };
const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close();
});

/** A client whose every request arrives with HTTP request info, as over Streamable HTTP. */
async function connect(options: GateOptions): Promise<{ client: Client; gate: ReturnType<typeof createGate> }> {
  const server = new McpServer({ name: 'plans', version: '1.0.0' });
  const policyGate = createGate(options);
  policyGate.install(server);
  server.registerTool('export', { description: 'paid tier only' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.registerTool('echo', { description: 'for everyone' }, () => ({ content: [{ type: 'text', text: 'echo' }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const deliver = serverTransport.onmessage!;
  const requestInfo = { headers, url: new URL('http://127.0.0.1/mcp/admin') };
  serverTransport.onmessage = (message, extra) => deliver(message, { ...extra, requestInfo } as Parameters<typeof deliver>[1]);
  const client = new Client({ name: 'plan-client', version: '1.0.0' });
  await client.connect(clientTransport);
  opened.push(client);
  return { client, gate: policyGate };
}

const readsRegion: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'eu-only', effect: 'deny', appliesTo: { names: ['echo'] }, when: { '!=': [{ var: 'request.headers.x-region' }, 'eu'] } }],
};
const readsTier: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'paid-only', effect: 'deny', appliesTo: { names: ['export'] }, when: { '==': [{ var: 'request.headers.x-tier' }, 'free'] } }],
};

describe('gate (mcp-gate/sdk): contexts built for the policy in force', () => {
  it('tells a session its list changed when the new policy reads a header the old one did not', async () => {
    const { client, gate } = await connect({ policy: readsRegion });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'export']);
    const changed = new Promise<string>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve('list_changed')));
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('no notification'), 5_000).unref());
    await gate.setPolicy(readsTier);
    expect(await Promise.race([changed, bounded])).toBe('list_changed');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    await expect(client.callTool({ name: 'export', arguments: {} })).resolves.toMatchObject({ isError: true, content: [{ text: expect.stringContaining('not found') }] });
  });

  it('hands a decision log the whole context, every header included', async () => {
    const events: DecisionEvent[] = [];
    const { client } = await connect({ policy: readsRegion, onDecision: (event) => events.push(event) });
    await client.callTool({ name: 'echo', arguments: {} });
    const event = events.find((candidate) => candidate.primitive?.name === 'echo')!;
    expect(event.context.request.headers).toEqual(headers);
    expect(event.context.request.endpoint).toBe('/mcp/admin');
  });

  it('builds a context holding only the headers the policy reads when nobody else reads it', async () => {
    const { client, gate } = await connect({ policy: readsRegion });
    await client.listTools();
    // The policy sees the header it reads: echo stays visible only because x-region is eu.
    expect(gate.policy.reads).toContain('request.headers.x-region');
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'echo' }]);
  });
});

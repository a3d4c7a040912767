import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestContextInput } from '../../src/core/context.js';
import { createWireGate, type WireConnection, type WireGate } from '../../src/wire/index.js';
import { createRecordingUpstream } from './recording-upstream.mjs';

const policy = { version: 1 as const, default: 'allow' as const, rules: [] };
const anyone: RequestContextInput = { request: { headers: {} } };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Each connection has its own upstream server and client, as each proxied session has. */
async function attach(gate: WireGate, server: { connect(transport: InMemoryTransport): Promise<void> }, capabilities: ClientCapabilities = {}): Promise<WireConnection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'shared-snapshots-test', version: '1.0.0' }, { capabilities });
  await client.connect(clientTransport);
  closers.push(() => client.close());
  return gate.attach(client, { notify: async () => undefined, isOpen: () => true });
}

/** An upstream that lists a tool only to clients that declare sampling, as some servers do. */
function createCapabilityUpstream(): Server {
  const server = new Server({ name: 'by-capability', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', inputSchema: { type: 'object' } },
      ...(server.getClientCapabilities()?.sampling === undefined ? [] : [{ name: 'summarize-with-your-model', inputSchema: { type: 'object' as const } }]),
    ],
  }));
  return server;
}

const toolNames = async (connection: WireConnection) =>
  ((await connection.handle({ method: 'tools/list' }, anyone)) as { tools: { name: string }[] }).tools.map((tool) => tool.name);

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('SharedSnapshots (through createWireGate)', () => {
  it('gives connections whose upstreams list the same primitives one catalog', async () => {
    const gate = createWireGate({ policy });
    const first = await attach(gate, createRecordingUpstream());
    const second = await attach(gate, createRecordingUpstream());
    expect(second.catalog()).toBe(first.catalog());
    expect(await toolNames(second)).toEqual(await toolNames(first));
  });

  it('never gives a connection the lists of an upstream session that lists differently', async () => {
    const gate = createWireGate({ policy });
    const plain = await attach(gate, createCapabilityUpstream());
    const sampling = await attach(gate, createCapabilityUpstream(), { sampling: {} });
    expect(sampling.catalog()).not.toBe(plain.catalog());
    expect(await toolNames(plain)).toEqual(['echo']);
    expect(await toolNames(sampling)).toEqual(['echo', 'summarize-with-your-model']);
    // A third session that declares sampling too lists what the second does: it shares its catalog.
    const samplingAgain = await attach(gate, createCapabilityUpstream(), { sampling: {} });
    expect(samplingAgain.catalog()).toBe(sampling.catalog());
    expect(await toolNames(samplingAgain)).toEqual(['echo', 'summarize-with-your-model']);
  });

  it('moves only the connection whose upstream changed its lists, and shares again once they are equal', async () => {
    const gate = createWireGate({ policy });
    const changing = await attach(gate, createRecordingUpstream());
    const steady = await attach(gate, createRecordingUpstream());
    const before = steady.catalog();
    expect(changing.catalog()).toBe(before);

    // add-public-tool registers public-late-1 on that upstream alone, which sends list_changed.
    await changing.handle({ method: 'tools/call', params: { name: 'add-public-tool', arguments: {} } }, anyone);
    await waitFor(() => changing.catalog() !== before, 'the changed upstream to be listed again');
    expect(await toolNames(changing)).toContain('public-late-1');
    expect(steady.catalog()).toBe(before);
    expect(await toolNames(steady)).not.toContain('public-late-1');

    await steady.handle({ method: 'tools/call', params: { name: 'add-public-tool', arguments: {} } }, anyone);
    await waitFor(() => steady.catalog() !== before, 'the second upstream to be listed again');
    expect(steady.catalog()).toBe(changing.catalog());
    expect(await toolNames(steady)).toContain('public-late-1');
  });

  it('shares nothing between two gates', async () => {
    const first = await attach(createWireGate({ policy }), createRecordingUpstream());
    const second = await attach(createWireGate({ policy }), createRecordingUpstream());
    expect(second.catalog()).not.toBe(first.catalog());
  });
});

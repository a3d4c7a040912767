// The per-envelope connections behind 2026-07-28 stateless requests (src/proxy/stateless-connections.ts),
// against a real `@modelcontextprotocol/server` 2.4 upstream on 127.0.0.1 whose tools can change.
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCapabilitiesMetaKey, clientInfoMetaKey, protocolVersionMetaKey } from '../../src/adapter/envelope.js';
import { createWireGate } from '../../src/proxy/proxy-runtime.js';
import { StatelessConnections } from '../../src/proxy/stateless-connections.js';
import { connectStatelessUpstream } from '../../src/proxy/stateless-upstream.js';
import type { WireConnection } from '../../src/wire/wire-connection.js';
import { listen, type Endpoint } from '../server/http.js';

const tools = ['first'];
const upstreamHandler = createMcpHandler(() => {
  const server = new McpServer({ name: 'changing', version: '1.0.0' });
  for (const name of tools) server.registerTool(name, { description: name }, () => ({ content: [] }));
  return server;
});
let upstream: Endpoint;
let upstreamUrl: URL;

beforeAll(async () => {
  upstream = await listen(upstreamHandler);
  upstreamUrl = new URL(`${upstream.url}/mcp`);
});

afterAll(async () => {
  await upstream?.close();
});

const envelopeOf = (name: string) => ({ [protocolVersionMetaKey]: '2026-07-28', [clientInfoMetaKey]: { name, version: '1.0.0' }, [clientCapabilitiesMetaKey]: {} });
const wire = createWireGate({ policy: { version: 1, default: 'allow', rules: [] } });
const listed = (connection: WireConnection) =>
  connection
    .catalog()
    .entries('tool')
    .map((entry) => entry.key);

/** The connection `use` hands its task (for looking at; a test that sends through it does so inside `use`). */
const connectionOf = (connections: StatelessConnections, envelope: Record<string, unknown>, headers: Record<string, string>) =>
  connections.use(envelope, headers, async (connection) => connection);

describe('StatelessConnections', () => {
  it('keeps one connection per envelope and headers, at most maxEntries, least recently used out first', async () => {
    const connections = new StatelessConnections({
      wire,
      onError: (error) => expect.fail(String(error)),
      maxEntries: 2,
      connect: (headers, envelope) => connectStatelessUpstream(upstreamUrl, headers, envelope),
    });
    try {
      const a = await connectionOf(connections, envelopeOf('a'), {});
      expect(await connectionOf(connections, envelopeOf('a'), {})).toBe(a);
      const withHeader = await connectionOf(connections, envelopeOf('a'), { 'x-team': 'blue' });
      expect(withHeader).not.toBe(a);
      expect(connections.size).toBe(2);
      await connectionOf(connections, envelopeOf('a'), {}); // a is now the most recently used
      await connectionOf(connections, envelopeOf('b'), {});
      expect(connections.size).toBe(2);
      expect(await connectionOf(connections, envelopeOf('a'), {})).toBe(a);
      expect(await connectionOf(connections, envelopeOf('a'), { 'x-team': 'blue' })).not.toBe(withHeader);
      // The same lists for every envelope: one shared snapshot.
      expect((await connectionOf(connections, envelopeOf('b'), {})).catalog()).toBe(a.catalog());
    } finally {
      await connections.close();
    }
  });

  it('closes an evicted connection only once the request using it has ended', async () => {
    const connections = new StatelessConnections({
      wire,
      onError: (error) => expect.fail(String(error)),
      maxEntries: 1,
      connect: (headers, envelope) => connectStatelessUpstream(upstreamUrl, headers, envelope),
    });
    try {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const running = connections.use(envelopeOf('busy'), {}, async (connection) => {
        await released;
        // A call goes upstream (a list would be answered from the lists already fetched).
        return connection.handle({ method: 'tools/call', params: { name: 'first', arguments: {} }, id: 1 }, {});
      });
      await connectionOf(connections, envelopeOf('newcomer'), {}); // evicts `busy` while its request runs
      expect(connections.size).toBe(1);
      release();
      expect(await running).toMatchObject({ content: [] });
    } finally {
      await connections.close();
    }
  });

  it('fetches the lists again once they are older than the TTL', async () => {
    const connections = new StatelessConnections({
      wire,
      onError: (error) => expect.fail(String(error)),
      listTtlMs: 0,
      connect: (headers, envelope) => connectStatelessUpstream(upstreamUrl, headers, envelope),
    });
    try {
      expect(listed(await connectionOf(connections, envelopeOf('ttl'), {}))).toEqual(['first']);
      tools.push('second');
      // Date.now() must move past the fetch time: wait for the next millisecond, bounded.
      const fetchedAt = Date.now();
      for (let spin = 0; spin < 1_000_000 && Date.now() === fetchedAt; spin++);
      expect(listed(await connectionOf(connections, envelopeOf('ttl'), {}))).toEqual(['first', 'second']);
    } finally {
      tools.pop();
      await connections.close();
    }
  });

  it('does not keep an envelope whose lists could not be fetched', async () => {
    const errors: unknown[] = [];
    const unreachable = new URL('http://127.0.0.1:9/mcp');
    const connections = new StatelessConnections({
      wire,
      onError: (error) => errors.push(error),
      connect: (headers, envelope) => connectStatelessUpstream(unreachable, headers, envelope),
    });
    await expect(connectionOf(connections, envelopeOf('lost'), {})).rejects.toThrow();
    expect(connections.size).toBe(0);
    await connections.close();
  });
});

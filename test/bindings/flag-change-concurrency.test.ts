import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OpenFeature } from '@openfeature/server-sdk';
import { afterAll, expect, it } from 'vitest';
import { flagResolutionsAtOnce } from '../../src/adapter/flag-changes.js';
import { createGate } from '../../src/sdk/index.js';
import { CountingProvider, flagClientOf, twoFlagPolicy } from './flag-fixtures.js';

// A flag change re-resolves the flags of every open session that reads it; against a remote
// provider that must not be one request per session in the same instant. With the real
// OpenFeature SDK and a provider that holds its answers, the gate has at most
// flagResolutionsAtOnce sessions resolving at once, and still reaches every session.

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const sessionCount = flagResolutionsAtOnce * 2 + 5;

it(`resolves at most ${flagResolutionsAtOnce} sessions at once on a change, and notifies all ${sessionCount}`, async () => {
  let insiderSees = false;
  const provider = new CountingProvider({
    'new-search': { variants: { on: true, off: false }, defaultVariant: 'off', disabled: false, contextEvaluator: () => (insiderSees ? 'on' : 'off') },
    'beta-tier': { variants: { on: 'on', off: 'off' }, defaultVariant: 'off', disabled: false },
  });
  const errors: Error[] = [];
  const gate = createGate({ policy: twoFlagPolicy, flags: { client: await flagClientOf(provider) }, onError: (error) => void errors.push(error) });
  const notified: number[] = [];
  const clients: McpClient[] = [];
  for (let index = 0; index < sessionCount; index++) {
    const server = new McpServer({ name: 'concurrency', version: '1.0.0' });
    server.registerTool('new-search', {}, async () => ({ content: [] }));
    gate.install(server);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    serverTransport.sessionId = `session-${index}`;
    const client = new McpClient({ name: `client-${index}`, version: '1.0.0' });
    client.fallbackNotificationHandler = async () => void notified.push(index);
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    expect((await client.listTools()).tools).toEqual([]);
    clients.push(client);
  }

  let release!: () => void;
  provider.hold = new Promise<void>((resolve) => (release = resolve));
  const before = provider.contexts.length;
  insiderSees = true;
  provider.putConfiguration({
    'new-search': { variants: { on: true, off: false }, defaultVariant: 'off', disabled: false, contextEvaluator: () => (insiderSees ? 'on' : 'off') },
    'beta-tier': { variants: { on: 'on', off: 'off' }, defaultVariant: 'off', disabled: false },
  });
  // Held: the boolean resolutions that have begun are the sessions resolving now.
  for (let round = 0; round < 200 && provider.contexts.length - before < flagResolutionsAtOnce; round++) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(provider.contexts.length - before).toBe(flagResolutionsAtOnce);
  release();
  for (let round = 0; round < 400 && notified.length < sessionCount; round++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(new Set(notified).size).toBe(sessionCount);
  expect(provider.contexts.length - before).toBe(sessionCount);
  expect(errors).toEqual([]);
  gate.close?.();
  await Promise.all(clients.map((client) => client.close()));
});

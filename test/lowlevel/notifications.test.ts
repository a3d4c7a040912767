// What the gate does with a low-level Server's own notifications: resources/updated reaches a
// session only for a resource its latest request may see.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListResourcesRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createGate } from '../../src/lowlevel/index.js';

const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'client.name' }, 'admin'] } }],
};

const lowLevelGate = createGate({ policy, overlay: { metadata: { 'resource:test://docs/secret': { groups: ['secret'] } } } });

async function session(clientName: string): Promise<{ server: Server; client: Client; updated: string[] }> {
  const server = new Server({ name: 'notify', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  lowLevelGate.install(server);
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      { uri: 'test://docs/public', name: 'public-doc' },
      { uri: 'test://docs/secret', name: 'secret-doc' },
    ],
  }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
  return { server, client, updated };
}

describe('gate (low-level Server) notifications', () => {
  it('sends resources/updated only for resources the session may see', async () => {
    const visitor = await session('visitor');
    const admin = await session('admin');
    for (const { server, client } of [visitor, admin]) {
      await client.listResources();
      await server.sendResourceUpdated({ uri: 'test://docs/secret' });
      await server.sendResourceUpdated({ uri: 'test://docs/public' });
      await client.ping();
    }
    expect(visitor.updated).toEqual(['test://docs/public']);
    expect(admin.updated).toEqual(['test://docs/secret', 'test://docs/public']);
    await Promise.all([visitor.client.close(), admin.client.close()]);
  });
});

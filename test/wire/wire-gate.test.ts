import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContextInput } from '../../src/core/context.js';
import { compileOverlay, createWireGate, RelayedError, type WireConnection, type WireGate } from '../../src/wire/index.js';
import { createRecordingUpstream, recordMessages } from './recording-upstream.mjs';

const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
};

const overlayDocument = {
  metadata: {
    'tool:secret-*': { groups: ['secret'] },
    'prompt:secret-*': { groups: ['secret'] },
    'resource:test://docs/secret': { groups: ['secret'] },
    'template:secret-*': { groups: ['secret'] },
    'tool:nothing-*': { groups: ['nobody'] },
  },
};

const visitor: RequestContextInput = { request: { headers: { 'x-role': 'visitor' } } };
const admin: RequestContextInput = { request: { headers: { 'x-role': 'admin' } } };

interface Upstream {
  connection: WireConnection;
  received: unknown[];
  notified: string[];
  close(): Promise<void>;
}

async function connectUpstream(gate: WireGate): Promise<Upstream> {
  const server = createRecordingUpstream();
  const received: unknown[] = [];
  const notified: string[] = [];
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(recordMessages(serverTransport, (message) => received.push(message)));
  const client = new Client({ name: 'wire-test', version: '1.0.0' });
  await client.connect(clientTransport);
  const connection = await gate.attach(client, { notify: async (list) => void notified.push(list), isOpen: () => true });
  return { connection, received, notified, close: () => client.close() };
}

/** The answer as the client would get it: the result, or the JSON-RPC error's fields. */
async function answerOf(connection: WireConnection, method: string, params: Record<string, unknown>, input = visitor): Promise<unknown> {
  try {
    return { result: await connection.handle({ method, params, id: 1 }, input) };
  } catch (error) {
    if (!(error instanceof RelayedError)) throw error;
    return { error: { code: error.code, message: error.message, data: error.data } };
  }
}

const namesOf = (result: unknown, field: string) => ((result as Record<string, { name: string }[]>)[field] ?? []).map((item) => item.name);

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('createWireGate', () => {
  let gate: WireGate;
  let upstream: Upstream;
  const errors: Error[] = [];

  beforeAll(async () => {
    gate = createWireGate({ policy, overlay: overlayDocument, onError: (error) => errors.push(error) });
    upstream = await connectUpstream(gate);
  });
  afterAll(async () => {
    await upstream.close();
  });

  it('lists only what the policy shows, annotations from _meta or else the overlay', async () => {
    const tools = await upstream.connection.handle({ method: 'tools/list' }, visitor);
    expect(namesOf(tools, 'tools')).toEqual([
      'public-echo',
      'bulk-0',
      'bulk-1',
      'bulk-2',
      'bulk-3',
      'bulk-4',
      'add-secret-tool',
      'add-public-tool',
      'sample',
      'slow-progress',
    ]);
    const adminTools = await upstream.connection.handle({ method: 'tools/list' }, admin);
    expect(namesOf(adminTools, 'tools')).toContain('secret-meta');
    // The gate's annotation is taken out of _meta; the rest of it stays.
    const secretMeta = (adminTools as { tools: { name: string; _meta?: unknown }[] }).tools.find((tool) => tool.name === 'secret-meta');
    expect(secretMeta?._meta).toEqual({ other: 1 });
    expect(namesOf(await upstream.connection.handle({ method: 'prompts/list' }, visitor), 'prompts')).toEqual(['public-prompt']);
    expect(namesOf(await upstream.connection.handle({ method: 'resources/list' }, visitor), 'resources')).toEqual(['public-doc']);
    expect(namesOf(await upstream.connection.handle({ method: 'resources/templates/list' }, visitor), 'resourceTemplates')).toEqual(['public-items']);
  });

  it('answers a hidden name exactly as the upstream answers a name nobody registered', async () => {
    const { connection } = upstream;
    const pairs: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['tools/call', { name: 'secret-drop', arguments: { table: 'users' } }, { name: 'never-registered', arguments: { table: 'users' } }],
      ['tools/call', { name: 'secret-meta', arguments: {} }, { name: 'never-registered', arguments: {} }],
      ['prompts/get', { name: 'secret-prompt' }, { name: 'never-registered' }],
      ['resources/read', { uri: 'test://docs/secret' }, { uri: 'test://docs/never-registered' }],
      ['resources/read', { uri: 'test://secret/7' }, { uri: 'test://nothing/7' }],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'secret-prompt' }, argument: { name: 'a', value: '' } },
        { ref: { type: 'ref/prompt', name: 'never-registered' }, argument: { name: 'a', value: '' } },
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: 'test://secret/{id}' }, argument: { name: 'id', value: '' } },
        { ref: { type: 'ref/resource', uri: 'test://never/{id}' }, argument: { name: 'id', value: '' } },
      ],
    ];
    for (const [method, hidden, unknown] of pairs) {
      const hiddenName = String(hidden['name'] ?? hidden['uri'] ?? (hidden['ref'] as Record<string, string>)['name'] ?? (hidden['ref'] as Record<string, string>)['uri']);
      const unknownName = String(unknown['name'] ?? unknown['uri'] ?? (unknown['ref'] as Record<string, string>)['name'] ?? (unknown['ref'] as Record<string, string>)['uri']);
      const hiddenAnswer = JSON.stringify(await answerOf(connection, method, hidden));
      const unknownAnswer = JSON.stringify(await answerOf(connection, method, unknown))
        .split(unknownName)
        .join(hiddenName);
      expect(hiddenAnswer, `${method} ${hiddenName}`).toBe(unknownAnswer);
      // And the admin gets the real thing.
      expect(JSON.stringify(await answerOf(connection, method, hidden, admin)), `${method} ${hiddenName} as admin`).not.toBe(hiddenAnswer);
    }
  });

  it('sends nothing naming a hidden primitive upstream', async () => {
    const { connection, received } = upstream;
    received.length = 0;
    await answerOf(connection, 'tools/call', { name: 'secret-drop', arguments: { table: 'users' } });
    await answerOf(connection, 'tools/call', { name: 'secret-unlisted', arguments: {} });
    await answerOf(connection, 'prompts/get', { name: 'secret-prompt' });
    await answerOf(connection, 'resources/read', { uri: 'test://docs/secret' });
    await answerOf(connection, 'resources/read', { uri: 'TEST://docs/secret' });
    await answerOf(connection, 'resources/subscribe', { uri: 'test://docs/secret' });
    await answerOf(connection, 'resources/read', { uri: 'test://secret/1' });
    expect(received.length).toBe(7);
    expect(JSON.stringify(received)).not.toContain('secret');
    await answerOf(connection, 'tools/call', { name: 'public-echo', arguments: { message: 'hi' } });
    expect(JSON.stringify(received.at(-1))).toContain('public-echo');
  });

  it('decides a name the upstream never listed by the overlay alone (fail closed)', async () => {
    const unlisted = await answerOf(upstream.connection, 'tools/call', { name: 'secret-unlisted', arguments: {} });
    expect(JSON.stringify(unlisted)).toContain('Tool secret-unlisted not found');
    upstream.received.length = 0;
    await answerOf(upstream.connection, 'tools/call', { name: 'secret-unlisted', arguments: {} }, admin);
    expect(JSON.stringify(upstream.received)).toContain('secret-unlisted');
  });

  it('warns about overlay globs that match nothing', () => {
    const overlay = compileOverlay(overlayDocument);
    const primitives = ['tool', 'prompt', 'resource', 'resourceTemplate'].flatMap((kind) =>
      upstream.connection
        .catalog()
        .entries(kind as never)
        .map((entry) => ({ kind: entry.kind, key: entry.key })),
    );
    expect(overlay.unmatchedKeys(primitives)).toEqual(['tool:nothing-*']);
  });

  it('refreshes on the upstream list_changed and notifies only a session whose view changed', async () => {
    const visitorSide = await connectUpstream(gate);
    const adminSide = await connectUpstream(gate);
    try {
      await visitorSide.connection.handle({ method: 'tools/list' }, visitor);
      await adminSide.connection.handle({ method: 'tools/list' }, admin);
      for (const [side, input] of [
        [visitorSide, visitor],
        [adminSide, admin],
      ] as const) {
        await side.connection.handle({ method: 'tools/call', params: { name: 'add-secret-tool', arguments: {} } }, input);
        await waitFor(() => side.connection.catalog().get('tool', 'secret-late') !== undefined, 'the refreshed catalog');
      }
      await waitFor(() => adminSide.notified.length > 0, "the admin's list_changed");
      expect(adminSide.notified).toEqual(['tools']);
      expect(visitorSide.notified).toEqual([]);
      expect(namesOf(await adminSide.connection.handle({ method: 'tools/list' }, admin), 'tools')).toContain('secret-late');
      expect(namesOf(await visitorSide.connection.handle({ method: 'tools/list' }, visitor), 'tools')).not.toContain('secret-late');
    } finally {
      await visitorSide.close();
      await adminSide.close();
    }
  });

  it('reports no errors along the way', () => {
    expect(errors).toEqual([]);
  });
});

describe('WireGate.setPolicy', () => {
  it('swaps the policy for every connection and notifies only a session whose lists changed', async () => {
    const gate = createWireGate({ policy, overlay: overlayDocument });
    const visitorSide = await connectUpstream(gate);
    const adminSide = await connectUpstream(gate);
    try {
      await visitorSide.connection.handle({ method: 'tools/list' }, visitor);
      await adminSide.connection.handle({ method: 'tools/list' }, admin);
      // Now prompts are for admins only as well: the visitor loses public-prompt, the admin nothing.
      await gate.setPolicy({
        ...policy,
        rules: [...policy.rules, { id: 'prompts-for-admins', effect: 'deny', appliesTo: { kinds: ['prompt'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
      });
      expect(visitorSide.notified).toEqual(['prompts']);
      expect(adminSide.notified).toEqual([]);
      expect(namesOf(await visitorSide.connection.handle({ method: 'prompts/list' }, visitor), 'prompts')).toEqual([]);
    } finally {
      await visitorSide.close();
      await adminSide.close();
    }
  });
});

describe('wire pagination', () => {
  it('pages the filtered list with its own cursors and rejects one it did not issue', async () => {
    const gate = createWireGate({ policy, overlay: overlayDocument, pageSize: 4 });
    const upstream = await connectUpstream(gate);
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = (await upstream.connection.handle({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, visitor)) as {
          tools: { name: string }[];
          nextCursor?: string;
        };
        expect(result.tools.length).toBeLessThanOrEqual(4);
        names.push(...result.tools.map((tool) => tool.name));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      expect(names).toEqual(['public-echo', 'bulk-0', 'bulk-1', 'bulk-2', 'bulk-3', 'bulk-4', 'add-secret-tool', 'add-public-tool', 'sample', 'slow-progress']);
      const first = (await upstream.connection.handle({ method: 'tools/list' }, visitor)) as { nextCursor: string };
      // A cursor opens only the list it was issued for: not the admin's, and not a forged one.
      expect(await answerOf(upstream.connection, 'tools/list', { cursor: first.nextCursor }, admin)).toEqual({
        error: { code: -32602, message: 'Invalid cursor', data: undefined },
      });
      expect(await answerOf(upstream.connection, 'tools/list', { cursor: 'forged' })).toEqual({ error: { code: -32602, message: 'Invalid cursor', data: undefined } });
    } finally {
      await upstream.close();
    }
  });
});

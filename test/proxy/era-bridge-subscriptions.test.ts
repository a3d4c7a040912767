// resources/subscribe and unsubscribe in 2025-era sessions bridged to a 2026-07-28-only upstream
// (docs/proxy.md, "The era bridge"): 2026-07-28 delivers resource updates on a
// `subscriptions/listen` stream, so the bridge holds one per session for the URIs it subscribed
// to and may read. A real `@modelcontextprotocol/server` 2.4 upstream (`legacy: 'reject'`) that
// records what it receives, and real v1 SDK clients over 127.0.0.1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, InMemoryServerEventBus } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientInfoMetaKey } from '../../src/adapter/envelope.js';
import { createWireGate, serveProxyHttp, type ProxyHttpServing } from '../../src/proxy/proxy-runtime.js';
import { createServer, registryPolicyDocument } from '../server/fixtures.js';
import { listen, type Endpoint } from '../server/http.js';
import { rawAnswer, recordReceived, waitFor, type WireRecorder } from './harness.js';
import { listenCapabilities } from './stateless-listen-fixtures.js';

type Received = { body: { method?: string; params?: { notifications?: { resourceSubscriptions?: string[] }; _meta?: Record<string, unknown> } }; headers: Headers };
/** Every JSON-RPC request the upstream received. */
const received: Received[] = [];
const bus = new InMemoryServerEventBus();
const handler = createMcpHandler(() => createServer({}, { capabilities: listenCapabilities }), { legacy: 'reject', bus });
let upstream: Endpoint;
let serving: ProxyHttpServing;
const stop = new AbortController();
const errors: unknown[] = [];
/** While set, the upstream answers no listen request (the test releases it). */
let holdListens: Promise<void> | undefined;

beforeAll(async () => {
  upstream = await listen(async (request) => {
    const text = await request.clone().text();
    if (text !== '') received.push({ body: JSON.parse(text) as Received['body'], headers: request.headers });
    if (holdListens !== undefined && received.at(-1)?.body.method === 'subscriptions/listen') await holdListens;
    return handler.fetch(request);
  });
  const openUpstream = () => {
    throw new Error('a bridged session opens no 2025-era upstream session');
  };
  serving = await serveProxyHttp(
    // The fixture's policy: admin primitives (docs://audit, the vault:// template) only for `x-role: admin`.
    createWireGate({ policy: registryPolicyDocument }),
    openUpstream,
    {
      port: 0,
      maxSessions: 10,
      sessionIdleTimeoutMs: 0,
      statelessUpstream: { url: new URL(`${upstream.url}/mcp`), headers: (downstream) => ({ 'x-role': String(downstream['x-role'] ?? '') }) },
      statelessOnly: true,
    },
    stop.signal,
    (error) => errors.push(error),
  );
}, 30_000);

afterAll(async () => {
  stop.abort();
  await serving?.close();
  await upstream?.close();
});

interface Session {
  readonly client: Client;
  readonly recorder: WireRecorder;
  /** The URIs of the resources/updated the client got, in order. */
  readonly updated: string[];
  /** Ends the session as a client does: DELETE, then close. */
  end(): Promise<void>;
}

async function connect(name: string, headers: Record<string, string> = {}): Promise<Session> {
  const client = new Client({ name, version: '1.0.0' });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
  const recorded = recordReceived(new StreamableHTTPClientTransport(serving.host.url, { requestInit: { headers } }));
  await client.connect(recorded.transport);
  return { client, recorder: recorded, updated, end: async () => (await recorded.transport.terminateSession(), await client.close()) };
}

/** The filters of the listens the upstream received from one client, in order. */
const listensOf = (name: string) =>
  received
    .filter(({ body }) => body.method === 'subscriptions/listen' && (body.params?._meta?.[clientInfoMetaKey] as { name?: string } | undefined)?.name === name)
    .map(({ body }) => [...(body.params?.notifications?.resourceSubscriptions ?? [])].sort());

const same = (filter: readonly string[] | undefined, expected: readonly string[]) => JSON.stringify(filter) === JSON.stringify(expected);

const updatesSeen = (session: Session, count: number) =>
  waitFor(`${count} updates (seen: ${JSON.stringify(session.updated)})`, () => (session.updated.length >= count ? [...session.updated] : undefined), 5_000);

describe('resources/subscribe in a bridged session', () => {
  it('answers a hidden URI as an unknown one, never sends it upstream, and relays updates only to the sessions that subscribed', async () => {
    const [plain, admin, bystander] = await Promise.all([connect('sub-plain'), connect('sub-admin', { 'x-role': 'admin' }), connect('sub-bystander')]);
    try {
      expect(plain.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      const uris = ['docs://audit', 'vault://7', 'items://5', 'docs://readme'];
      const answers: Record<string, string> = {};
      for (const uri of [...uris, 'docs://nothing']) answers[uri] = await rawAnswer(plain.client, plain.recorder, 'resources/subscribe', { uri });
      // Hidden (docs://audit, vault://7) ≡ unknown (docs://nothing) ≡ visible: what a 2026-07-28 upstream acknowledges for any URI.
      expect(new Set(Object.values(answers))).toEqual(new Set(['{"jsonrpc":"2.0","result":{}}']));
      for (const uri of uris) await admin.client.subscribeResource({ uri });
      // A listen per change of subscriptions at most (changes made while one opens share the next);
      // the last holds the session's whole set, nothing hidden in any of them.
      const plainSet = ['docs://nothing', 'docs://readme', 'items://5'];
      await waitFor(
        'the listens of both sessions',
        () => (same(listensOf('sub-plain').at(-1), plainSet) && same(listensOf('sub-admin').at(-1), [...uris].sort()) ? true : undefined),
        5_000,
      );
      expect(listensOf('sub-plain').length).toBeLessThanOrEqual(3);
      for (const filter of listensOf('sub-plain')) expect(plainSet).toEqual(expect.arrayContaining(filter));
      expect(JSON.stringify(received.filter(({ headers }) => headers.get('x-role') !== 'admin'))).not.toMatch(/docs:\/\/audit|vault:\/\/7/);
      // The upstream holds the two sessions' latest listens only (each older one closed once the next was acknowledged).
      await waitFor('two upstream listens', () => (bus.listenerCount === 2 ? true : undefined), 5_000);

      for (const uri of uris) handler.notify.resourceUpdated(uri);
      expect(await updatesSeen(admin, 4)).toEqual(uris);
      // One stream, in order: had a hidden update been relayed, it would have come before the last.
      expect(await updatesSeen(plain, 2)).toEqual(['items://5', 'docs://readme']);

      await plain.client.unsubscribeResource({ uri: 'docs://readme' });
      await waitFor(
        'the listen without docs://readme',
        () => (same(listensOf('sub-plain').at(-1), ['docs://nothing', 'items://5']) && bus.listenerCount === 2 ? true : undefined),
        5_000,
      );
      handler.notify.resourceUpdated('docs://readme');
      handler.notify.resourceUpdated('items://5');
      expect(await updatesSeen(admin, 6)).toEqual([...uris, 'docs://readme', 'items://5']);
      expect(await updatesSeen(plain, 3)).toEqual(['items://5', 'docs://readme', 'items://5']);
      expect(bystander.updated).toEqual([]);
      expect(listensOf('sub-bystander')).toEqual([]);
    } finally {
      await Promise.all([plain.end(), admin.end(), bystander.end()]);
    }
    // Each session's listen is closed with it.
    await waitFor('no upstream listens', () => (bus.listenerCount === 0 ? true : undefined), 5_000);
    expect(errors).toEqual([]);
  });

  it('opens one more listen for a burst of subscribes, not one per subscribe', async () => {
    const session = await connect('sub-burst');
    const burst = Array.from({ length: 30 }, (_, index) => `items://${index + 1}`);
    let release!: () => void;
    holdListens = new Promise<void>((resolve) => (release = resolve));
    try {
      // Every subscribe is answered while the first one's listen is still unacknowledged upstream.
      await Promise.all(burst.map((uri) => session.client.subscribeResource({ uri })));
      holdListens = undefined;
      release();
      await waitFor('a listen of the whole burst', () => (same(listensOf('sub-burst').at(-1), [...burst].sort()) && bus.listenerCount === 1 ? true : undefined), 5_000);
      // The first subscribe's listen, then one for the other 29: not a stream per subscribe.
      expect(listensOf('sub-burst')).toHaveLength(2);
      handler.notify.resourceUpdated('items://30');
      expect(await updatesSeen(session, 1)).toEqual(['items://30']);
    } finally {
      holdListens = undefined;
      release();
      await session.end();
    }
    await waitFor('no upstream listens', () => (bus.listenerCount === 0 ? true : undefined), 5_000);
  });

  it('does not send upstream again a URI the session may no longer see', async () => {
    // Each request is decided on its own headers: the session is an admin's, then no longer.
    const headers: Record<string, string> = { 'x-role': 'admin' };
    const session = await connect('sub-demoted', headers);
    try {
      await session.client.subscribeResource({ uri: 'docs://audit' });
      headers['x-role'] = 'none';
      await session.client.subscribeResource({ uri: 'items://5' });
      await waitFor('the second listen', () => (listensOf('sub-demoted').length === 2 && bus.listenerCount === 1 ? true : undefined), 5_000);
      expect(listensOf('sub-demoted')).toEqual([['docs://audit'], ['items://5']]);
      handler.notify.resourceUpdated('docs://audit');
      handler.notify.resourceUpdated('items://5');
      expect(await updatesSeen(session, 1)).toEqual(['items://5']);
    } finally {
      await session.end();
    }
    await waitFor('no upstream listens', () => (bus.listenerCount === 0 ? true : undefined), 5_000);
  });
});

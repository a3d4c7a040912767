// `subscriptions/listen` through `mcp-gate proxy` (docs/proxy.md, "2026-07-28 stateless
// requests"): a real `@modelcontextprotocol/server` 2.4 upstream that records what it receives,
// real v2 clients pinned to 2026-07-28 over 127.0.0.1. Each listener gets only the changes its
// own context may see; a hidden resource is subscribed to as the upstream treats a URI it never
// had, and never named upstream.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCapabilitiesMetaKey } from '../../src/adapter/envelope.js';
import { createWireGate } from '../../src/proxy/proxy-runtime.js';
import { StatelessConnections } from '../../src/proxy/stateless-connections.js';
import { StatelessListeners } from '../../src/proxy/stateless-listen.js';
import { createStatelessHandler } from '../../src/proxy/stateless-requests.js';
import { connectStatelessUpstream } from '../../src/proxy/stateless-upstream.js';
import { registryPolicyDocument } from '../server/fixtures.js';
import { listen, postModern, type Endpoint } from '../server/http.js';
import { startProxy, waitFor, type RunningProxy } from './harness.js';
import {
  closedCause,
  listenCapabilities,
  openListener,
  rawListen,
  seenBy,
  startRecordingUpstream,
  type Listener,
  type RecordingUpstream,
} from './stateless-listen-fixtures.js';

const policyPath = join(tmpdir(), `mcp-gate-stateless-listen-${process.pid}.policy.json`);
const decisionLogPath = join(tmpdir(), `mcp-gate-stateless-listen-${process.pid}.decisions.jsonl`);
const admin = { 'x-role': 'admin' };
const toolsChanged = 'notifications/tools/list_changed';

/** Tools the upstream lists besides the fixture's, added by the tests; `admin` ones only admins may see. */
const lateTools: { name: string; admin: boolean }[] = [];
let upstream: RecordingUpstream;
let proxy: RunningProxy;
let proxyEndpoint: Endpoint;

beforeAll(async () => {
  writeFileSync(policyPath, JSON.stringify(registryPolicyDocument));
  upstream = await startRecordingUpstream((server) => {
    for (const { name, admin: adminOnly } of lateTools) {
      server.registerTool(name, { description: 'added later', ...(adminOnly ? { _meta: { 'mcp-gate': { groups: ['admin'] } } } : {}) }, () => ({ content: [] }));
    }
  });
  proxy = await startProxy([
    '--policy',
    policyPath,
    '--upstream-url',
    `${upstream.endpoint.url}/mcp`,
    '--forward-header',
    'x-role',
    '--watch',
    '--decision-log',
    decisionLogPath,
  ]);
  proxyEndpoint = { url: proxy.url.origin, close: async () => undefined };
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await upstream?.close();
  rmSync(decisionLogPath, { force: true });
});

/** Opens listeners, runs `test`, and closes them whatever happens. */
async function withListeners(open: (() => Promise<Listener>)[], test: (listeners: Listener[]) => Promise<void>): Promise<void> {
  const listeners = await Promise.all(open.map((start) => start()));
  try {
    await test(listeners);
  } finally {
    await Promise.all(listeners.map((listener) => listener.close()));
  }
}

describe('mcp-gate proxy relaying subscriptions/listen from a 2026-07-28 upstream', () => {
  it('relays resources/updated only to listeners that may read the resource', async () => {
    // Resources and URIs of templates (items:// for everyone, vault:// for admins).
    const uris = ['docs://audit', 'vault://7', 'items://5', 'docs://readme'];
    const filter = { resourceSubscriptions: uris };
    await withListeners([() => openListener(proxy.url, 'listen-plain', filter), () => openListener(proxy.url, 'listen-admin', filter, admin)], async ([plain, root]) => {
      // The upstream acknowledges a URI it does not have as it acknowledges one it has: so does the proxy for a hidden one.
      expect(plain!.subscription.honoredFilter).toEqual(filter);
      for (const uri of uris) upstream.handler.notify.resourceUpdated(uri);
      expect(await seenBy(root!, 4)).toEqual(uris);
      // One stream, in order: had a hidden update been relayed, it would have come before the last.
      expect(await seenBy(plain!, 2)).toEqual(['items://5', 'docs://readme']);
    });
  });

  it('records the decision on each URI a listener subscribes to, as for a read of it', async () => {
    const filter = { resourceSubscriptions: ['docs://audit', 'docs://readme'] };
    await withListeners([() => openListener(proxy.url, 'listen-audited', filter)], async () => {
      const decisions = await waitFor('the listen decisions in the log', () => {
        const lines = existsSync(decisionLogPath)
          ? readFileSync(decisionLogPath, 'utf8')
              .split('\n')
              .filter((line) => line.includes('"listen-audited"'))
          : [];
        return lines.length >= 2 ? lines.map((line) => JSON.parse(line) as Record<string, unknown>) : undefined;
      });
      expect(decisions.map(({ method, primitive, allowed }) => ({ method, primitive, allowed }))).toEqual([
        { method: 'subscriptions/listen', primitive: { kind: 'resource', name: 'audit' }, allowed: false },
        { method: 'subscriptions/listen', primitive: { kind: 'resource', name: 'readme' }, allowed: true },
      ]);
    });
  });

  it("sends list_changed only to listeners whose view of the list changed, and refreshes that envelope's lists", async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] };
    await withListeners([() => openListener(proxy.url, 'list-plain', filter), () => openListener(proxy.url, 'list-admin', filter, admin)], async ([plain, root]) => {
      const toolsOf = async () => (await root!.client.listTools()).tools.map((tool) => tool.name);
      expect(await toolsOf()).not.toContain('late-admin'); // the admin's envelope now has cached lists
      lateTools.push({ name: 'late-admin', admin: true });
      upstream.handler.notify.toolsChanged();
      expect(await seenBy(root!, 1)).toEqual([toolsChanged]);
      // Fetched again at once for that envelope, not up to 60 s later.
      expect(await toolsOf()).toContain('late-admin');
      lateTools.push({ name: 'late-public', admin: false });
      upstream.handler.notify.toolsChanged();
      expect(await seenBy(root!, 2)).toEqual([toolsChanged, toolsChanged]);
      // A marker after both changes: the plain listener was told of the second only.
      upstream.handler.notify.resourceUpdated('docs://readme');
      expect(await seenBy(plain!, 2)).toEqual([toolsChanged, 'docs://readme']);
    });
  });

  it('sends list_changed to the listener whose view a policy reload (--watch) changed', async () => {
    const filter = { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] };
    await withListeners([() => openListener(proxy.url, 'policy-plain', filter), () => openListener(proxy.url, 'policy-admin', filter, admin)], async ([plain, root]) => {
      // admin-reset goes for everyone: only the admin saw it.
      const denyAdminReset = { id: 'no-admin-reset', effect: 'deny', appliesTo: { names: ['admin-reset'] } };
      writeFileSync(policyPath, JSON.stringify({ ...registryPolicyDocument, rules: [...registryPolicyDocument.rules!, denyAdminReset] }));
      try {
        expect(await seenBy(root!, 1)).toEqual([toolsChanged]);
        upstream.handler.notify.resourceUpdated('docs://readme');
        expect(await seenBy(plain!, 1)).toEqual(['docs://readme']);
      } finally {
        writeFileSync(policyPath, JSON.stringify(registryPolicyDocument));
      }
      // Back again: the admin's view changed once more, the plain listener's never did.
      expect(await seenBy(root!, 3)).toEqual([toolsChanged, 'docs://readme', toolsChanged]);
      expect(plain!.seen).toEqual(['docs://readme']);
    });
  });

  it('answers a listen naming a hidden resource byte for byte as an upstream without it', async () => {
    const without = await listen(
      createMcpHandler(() => {
        const server = new McpServer({ name: 'gated-v2', version: '1.0.0' }, { capabilities: listenCapabilities });
        server.registerResource('other', 'docs://other', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'other' }] }));
        return server;
      }),
    );
    try {
      const filters: unknown[] = [
        { resourceSubscriptions: ['docs://audit', 'vault://7'] },
        { toolsListChanged: true, resourceSubscriptions: ['docs://readme', 'docs://audit'] },
        { resourceSubscriptions: 'docs://audit' },
        { resourceSubscriptions: ['docs://audit', 5] },
        ['docs://audit'],
        {},
      ];
      for (const notifications of filters) {
        const hidden = await rawListen(proxyEndpoint, notifications);
        const unknown = await rawListen(without, notifications);
        const wire = (answer: typeof hidden) => ({ notifications, status: answer.status, type: answer.headers.get('content-type'), text: answer.text });
        expect(wire(hidden)).toEqual(wire(unknown));
      }
    } finally {
      await without.close();
    }
  });

  it('never names a hidden resource upstream', () => {
    const listens = upstream.received.filter(({ body }) => body.method === 'subscriptions/listen');
    expect(listens.filter(({ headers }) => headers.get('x-role') !== 'admin').length).toBeGreaterThan(3);
    for (const { body, headers } of listens) {
      if (headers.get('x-role') === 'admin') continue;
      expect(JSON.stringify(body)).not.toMatch(/docs:\/\/audit|vault:\/\/7/);
    }
  });

  it('works under a policy that hides what it does not name (default deny): the filter itself is no URI to hide', async () => {
    const denyPolicyPath = join(tmpdir(), `mcp-gate-stateless-listen-deny-${process.pid}.policy.json`);
    writeFileSync(denyPolicyPath, JSON.stringify({ version: 1, default: 'deny', rules: [{ id: 'readme', effect: 'allow', appliesTo: { names: ['readme', 'echo'] } }] }));
    const denying = await startProxy(['--policy', denyPolicyPath, '--upstream-url', `${upstream.endpoint.url}/mcp`]);
    try {
      const filter = { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] };
      await withListeners([() => openListener(denying.url, 'listen-denying', filter)], async ([listener]) => {
        expect(listener!.subscription.honoredFilter).toEqual(filter);
        upstream.handler.notify.resourceUpdated('docs://readme');
        expect(await seenBy(listener!, 1)).toEqual(['docs://readme']);
      });
    } finally {
      await denying.stop();
      rmSync(denyPolicyPath, { force: true });
    }
  });

  it('sends an envelope without client capabilities upstream as it came, and relays the refusal', async () => {
    const proxied = await rawListen(proxyEndpoint, { toolsListChanged: true }, { capabilities: null });
    const direct = await rawListen(upstream.endpoint, { toolsListChanged: true }, { capabilities: null });
    expect({ status: proxied.status, text: proxied.text }).toEqual({ status: direct.status, text: direct.text });
    expect(proxied.text).toContain('clientCapabilities: missing');
    const sent = upstream.received.filter(({ body }) => body.method === 'subscriptions/listen').at(-2)!;
    expect(Object.keys((sent.body['params'] as { _meta: object })._meta)).not.toContain(clientCapabilitiesMetaKey);
    // So does any other request's: the lists fetched for such an envelope went without the key.
    await postModern(proxyEndpoint, 'tools/list', {}, { capabilities: null, clientInfo: { name: 'no-capabilities', version: '1.0.0' } });
    const lists = upstream.received.filter(({ body }) => body.method === 'tools/list' && JSON.stringify(body).includes('no-capabilities'));
    expect(lists.length).toBeGreaterThan(0);
    for (const { body } of lists) expect(Object.keys((body['params'] as { _meta: object })._meta)).not.toContain(clientCapabilitiesMetaKey);
  });

  it("closes the upstream's listen stream when the listener closes its own", async () => {
    const before = upstream.bus.listenerCount;
    const listener = await openListener(proxy.url, 'closing', { toolsListChanged: true });
    await waitFor('the upstream stream', () => (upstream.bus.listenerCount === before + 1 ? true : undefined), 10_000);
    await listener.close();
    await waitFor('the upstream stream to close', () => (upstream.bus.listenerCount === before ? true : undefined), 10_000);
  });

  it('ends the listener stream when the upstream drops its own, without an answer', async () => {
    const listener = await openListener(proxy.url, 'dropped', { toolsListChanged: true });
    try {
      upstream.dropListenStreams();
      expect(await closedCause(listener)).toBe('remote');
    } finally {
      await listener.close();
    }
  });

  it('stops with listeners open, ending their streams', async () => {
    const stopping = await startProxy(['--policy', policyPath, '--upstream-url', `${upstream.endpoint.url}/mcp`]);
    const listener = await openListener(stopping.url, 'at-shutdown', { toolsListChanged: true });
    try {
      const within = <T>(promise: Promise<T>) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, 10_000, 'still waiting').unref())]);
      expect(await within(stopping.stop())).toBe(0);
      expect(await within(listener.subscription.closed)).toBe('remote');
    } finally {
      await listener.close();
    }
  });

  it('answers as unavailable while the upstream answers no JSON-RPC', async () => {
    upstream.down = true;
    try {
      const answer = await postModern(
        proxyEndpoint,
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        { clientInfo: { name: 'outage', version: '1.0.0' } },
      );
      expect({ status: answer.status, text: answer.text }).toEqual({
        status: 200,
        text: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The upstream server is not available"}}',
      });
    } finally {
      upstream.down = false;
    }
  });
});

describe('StatelessListeners', () => {
  /** The proxy's stateless handler on 127.0.0.1 with its own upstream, and listeners that wait `ackTimeoutMs` for an acknowledgement. */
  async function startGate(limits: { ackTimeoutMs?: number; maxListeners?: number } = {}) {
    const own = await startRecordingUpstream();
    const url = new URL(`${own.endpoint.url}/mcp`);
    const onError = () => undefined;
    const connections = new StatelessConnections({
      wire: createWireGate({ policy: registryPolicyDocument }),
      onError,
      connect: (headers, envelope) => connectStatelessUpstream(url, headers, envelope),
    });
    const listeners = new StatelessListeners({ connections, upstream: url, onError, ...limits });
    const handle = createStatelessHandler({ connections, listeners, upstreamHeaders: () => ({}), onError });
    const server = createHttpServer((request, response) => void handle(request, response, '/mcp'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint: Endpoint = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: async () => undefined };
    return {
      upstream: own,
      endpoint,
      listeners,
      async close() {
        listeners.close();
        await connections.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await own.close();
      },
    };
  }

  it('ends a stream the upstream never acknowledges once the wait runs out', async () => {
    const gate = await startGate({ ackTimeoutMs: 100 });
    try {
      gate.upstream.silentListens = true;
      const answer = await rawListen(gate.endpoint, { toolsListChanged: true });
      expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: '' });
      await waitFor('the listener to be gone', () => (gate.listeners.size === 0 ? true : undefined), 10_000);
    } finally {
      await gate.close();
    }
  });

  it("relays the upstream's graceful close and ends the stream", async () => {
    const gate = await startGate();
    try {
      const listener = await openListener(new URL(`${gate.endpoint.url}/mcp`), 'graceful', { toolsListChanged: true });
      try {
        await gate.upstream.handler.close(); // the v2 SDK ends every open subscription with its answer
        const closed = await Promise.race([listener.subscription.closed, new Promise((resolve) => setTimeout(resolve, 10_000, 'still open').unref())]);
        expect(closed).toBe('graceful');
      } finally {
        await listener.close();
      }
    } finally {
      await gate.close();
    }
  });

  it('refuses a listen beyond its bound as the v2 SDK server refuses one beyond its own', async () => {
    const gate = await startGate({ maxListeners: 1 });
    try {
      const first = await openListener(new URL(`${gate.endpoint.url}/mcp`), 'first', { toolsListChanged: true });
      try {
        const refused = await rawListen(gate.endpoint, { toolsListChanged: true });
        expect({ status: refused.status, text: refused.text }).toEqual({
          status: 200,
          text: '{"jsonrpc":"2.0","error":{"code":-32603,"message":"Subscription limit reached"},"id":7}',
        });
      } finally {
        await first.close();
      }
    } finally {
      await gate.close();
    }
  });
});

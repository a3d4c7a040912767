// Supervision of the proxy's upstreams: a real upstream process killed in the middle of a call,
// over stdio (server-everything spawned per session) and over Streamable HTTP (server-everything's
// streamableHttp CLI). The proxy runs in this process through the runtime `mcp-gate proxy` uses.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ResourceUpdatedNotificationSchema, SubscribeRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { serveProxyHttp, createWireGate, type WireGateOptions } from '../../src/proxy/proxy-runtime.js';
import { UpstreamSupervisor } from '../../src/proxy/supervisor.js';
import { openUpstreamTransport } from '../../src/proxy/upstream-transport.js';
import { startEverythingHttp, type EverythingHttpUpstream } from './everything-http-upstream.js';
import { everythingCommand, repositoryRoot, waitFor } from './harness.js';

const allowAll = { version: 1 as const, default: 'allow' as const, rules: [] };
const wentAway = 'MCP error -32603: The upstream server went away before answering this request (it may have acted on it); the next request opens a new upstream session';

describe('UpstreamSupervisor', () => {
  it('doubles the wait after each short-lived failure, up to its bound', () => {
    let now = 0;
    const supervisor = new UpstreamSupervisor({ initialDelayMs: 100, maxDelayMs: 1_000, stableAfterMs: 10_000, now: () => now });
    expect(supervisor.waitMs).toBe(0);
    const waits: number[] = [];
    for (let failure = 0; failure < 6; failure++) {
      waits.push(supervisor.failed(50));
      now += supervisor.waitMs;
    }
    expect(waits).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('counts failures that arrive during a wait once (every session of a dead upstream at once)', () => {
    let now = 0;
    const supervisor = new UpstreamSupervisor({ initialDelayMs: 100, now: () => now });
    expect([supervisor.failed(10), supervisor.failed(10), supervisor.failed(undefined)]).toEqual([100, 100, 100]);
    expect(supervisor.failures).toBe(1);
    now = 100;
    expect(supervisor.failed(10)).toBe(200);
  });

  it('starts counting again after an upstream that ran long enough', () => {
    let now = 0;
    const supervisor = new UpstreamSupervisor({ initialDelayMs: 100, stableAfterMs: 1_000, now: () => now });
    supervisor.failed(undefined);
    now = 100;
    supervisor.failed(10);
    now = 300;
    expect(supervisor.failed(5_000)).toBe(100);
    expect(supervisor.failures).toBe(1);
  });
});

interface RunningSupervisedProxy {
  readonly url: URL;
  readonly errors: string[];
  close(): Promise<void>;
}

async function startSupervisedProxy(
  openUpstream: () => Transport,
  gateOptions: Partial<WireGateOptions> = {},
  settings: { readonly upstreamPingMs?: number; readonly probeTimeoutMs?: number } = {},
): Promise<RunningSupervisedProxy> {
  const errors: string[] = [];
  const onError = (error: unknown) => void errors.push(error instanceof Error ? error.message : String(error));
  const wire = createWireGate({ policy: allowAll, onError, ...gateOptions });
  const controller = new AbortController();
  const serving = await serveProxyHttp(wire, openUpstream, { port: 0, maxSessions: 10, sessionIdleTimeoutMs: 0, ...settings }, controller.signal, onError);
  return {
    url: serving.host.url,
    errors,
    async close() {
      controller.abort();
      await serving.close();
    },
  };
}

async function connect(url: URL, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/** A tool call that runs for 30 s, started and seen running upstream (its first progress came back). */
async function startLongCall(client: Client): Promise<{ readonly call: Promise<unknown> }> {
  let progressed = false;
  const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
    onprogress: () => void (progressed = true),
    // A proxy that hung would make this time out, with another message than the one expected.
    timeout: 25_000,
  });
  call.catch(() => undefined);
  await waitFor('the long call to report progress', () => (progressed ? true : undefined), 20_000);
  // In an object: an async function returning the promise itself would wait for it.
  return { call };
}

const echo = async (client: Client, text: string) => JSON.stringify((await client.callTool({ name: 'echo', arguments: { message: text } })).content);

// Spawning four upstream processes takes a while on a loaded machine: these tests get 60 s (every wait in them is bounded).
describe('mcp-gate proxy when a stdio upstream process dies', () => {
  let proxy: RunningSupervisedProxy;
  const upstreams: StdioClientTransport[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const [command, ...args] = everythingCommand.split(' ');
    proxy = await startSupervisedProxy(() => {
      const transport = openUpstreamTransport({ kind: 'command', command: command!, args }, { cwd: repositoryRoot }) as StdioClientTransport;
      upstreams.push(transport);
      return transport;
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await proxy?.close();
  });

  it('answers the calls waiting on it with an error, keeps serving the other sessions, and gives the session a new upstream', { timeout: 60_000 }, async () => {
    const crashed = await connect(proxy.url, 'crashed-session');
    clients.push(crashed);
    const first = upstreams.at(-1)!;
    const other = await connect(proxy.url, 'other-session');
    clients.push(other);
    expect(upstreams).toHaveLength(2);

    const { call: pending } = await startLongCall(crashed);
    process.kill(first.pid!, 'SIGKILL');
    await expect(pending).rejects.toThrow(wentAway);
    expect(proxy.errors.join('\n')).toMatch(/the upstream session ended after \d+ ms; the downstream session's next request opens a new one/);

    // The other session's upstream process is untouched; a new session gets its own.
    expect(await echo(other, 'still here')).toContain('still here');
    const newcomer = await connect(proxy.url, 'new-session');
    clients.push(newcomer);
    expect(await echo(newcomer, 'hello')).toContain('hello');
    expect(upstreams).toHaveLength(3);

    // The same downstream session, without initializing again: its next request starts a new upstream process.
    expect(await echo(crashed, 'back again')).toContain('back again');
    expect(upstreams).toHaveLength(4);
    expect(upstreams.at(-1)!.pid).not.toBe(first.pid);
    expect((await crashed.listTools()).tools.map((tool) => tool.name)).toContain('echo');
  });
});

describe('mcp-gate proxy when a Streamable HTTP upstream stops answering', () => {
  let upstream: EverythingHttpUpstream;
  let proxy: RunningSupervisedProxy;
  let client: Client;

  beforeAll(async () => {
    upstream = await startEverythingHttp();
    proxy = await startSupervisedProxy(() => openUpstreamTransport({ kind: 'url', url: upstream.url }, { cwd: repositoryRoot }));
    client = await connect(proxy.url, 'http-upstream-session');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await upstream?.kill();
  });

  it('answers the call waiting on it with an error, refuses while it is down, and reconnects once it is back', { timeout: 60_000 }, async () => {
    const { call: pending } = await startLongCall(client);
    await upstream.kill();
    await expect(pending).rejects.toThrow(wentAway);
    // Down: the session's next request cannot open an upstream session, and says so.
    await expect(echo(client, 'anyone?')).rejects.toThrow('MCP error -32603: The upstream server is not available');
    // Back on the same port: the same downstream session opens a new upstream session.
    upstream = await startEverythingHttp(Number(upstream.url.port));
    expect(await echo(client, 'reconnected')).toContain('reconnected');
  });
});

describe('mcp-gate proxy with --upstream-ping when a Streamable HTTP upstream hangs', () => {
  let upstream: EverythingHttpUpstream;
  let proxy: RunningSupervisedProxy;
  let client: Client;

  beforeAll(async () => {
    upstream = await startEverythingHttp();
    proxy = await startSupervisedProxy(
      () => openUpstreamTransport({ kind: 'url', url: upstream.url }, { cwd: repositoryRoot }),
      {},
      { upstreamPingMs: 300, probeTimeoutMs: 1_000 },
    );
    client = await connect(proxy.url, 'hung-upstream-session');
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await upstream?.kill();
  });

  it('takes an upstream that stops answering (no transport error) as gone, answers the waiting call, and reconnects once it answers again', { timeout: 60_000 }, async () => {
    const { call: pending } = await startLongCall(client);
    // Stopped, the process keeps its port and connections open and answers nothing: without the
    // pings, the call would wait for its own 25 s timeout and fail with another message.
    process.kill(upstream.pid, 'SIGSTOP');
    try {
      await expect(pending).rejects.toThrow(wentAway);
      expect(proxy.errors.join('\n')).toMatch(/the upstream session ended after \d+ ms/);
    } finally {
      process.kill(upstream.pid, 'SIGCONT');
    }
    // The same downstream session opens a new upstream session on its next request.
    expect(await echo(client, 'answering again')).toContain('answering again');
  });
});

describe('mcp-gate proxy when a Streamable HTTP upstream stops and starts again under an idle session', () => {
  // The recording upstream in this process, over Streamable HTTP on 127.0.0.1, stopped and started
  // again on the same port; each upstream session records the subscriptions it receives.
  const servers: { server: McpServer; subscribed: string[] }[] = [];
  let host: HttpHost;
  let proxy: RunningSupervisedProxy;
  let client: Client;
  const updated: string[] = [];

  const startUpstream = (port = 0) =>
    startHttpHost({
      createServer: () => {
        const entry = { server: createRecordingUpstream(), subscribed: [] as string[] };
        entry.server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
          entry.subscribed.push(request.params.uri);
          return {};
        });
        servers.push(entry);
        return entry.server;
      },
      gate: { install() {} },
      port,
      sessionIdleTimeoutMs: 0,
    });

  beforeAll(async () => {
    host = await startUpstream();
    proxy = await startSupervisedProxy(() => openUpstreamTransport({ kind: 'url', url: host.url }, { cwd: repositoryRoot }));
    client = await connect(proxy.url, 'subscribed-session');
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await host?.close();
  });

  it('notices the closed stream, seeks a new upstream session with back-off, and replays the subscription without a request', { timeout: 60_000 }, async () => {
    await client.subscribeResource({ uri: 'test://docs/public' });
    const first = servers.at(-1)!;
    expect(first.subscribed).toEqual(['test://docs/public']);

    // Stopped: the upstream session's stream closes, with no request of the client waiting.
    await host.close();
    await waitFor('the proxy to see the upstream end', () => (proxy.errors.some((message) => message.includes('the upstream session ended')) ? true : undefined), 20_000);
    expect(proxy.errors.join('\n')).toContain('a new one is sought now');
    // Down for a while: tries fail and are spaced by the back-off; the proxy stays up.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const serversWhileDown = servers.length;

    host = await startUpstream(Number(host.url.port));
    const replayed = await waitFor(
      'the subscription replayed upstream',
      () => servers.slice(serversWhileDown).find((entry) => entry.subscribed.includes('test://docs/public')),
      30_000,
    );
    // The client sent nothing since; the resource's updates reach it again.
    await replayed.server.server.sendResourceUpdated({ uri: 'test://docs/public' });
    await waitFor('the update to reach the client', () => (updated.includes('test://docs/public') ? true : undefined), 10_000);
    const answer = await client.callTool({ name: 'public-echo', arguments: { message: 'still the same session' } });
    expect(JSON.stringify(answer.content)).toContain('echo: still the same session');
  });
});

describe('mcp-gate proxy restarting a recording upstream', () => {
  let proxy: RunningSupervisedProxy;
  /** Per upstream process: its transport and the messages it received (its stderr). */
  const upstreams: { transport: StdioClientTransport; received: unknown[] }[] = [];
  let client: Client;
  const listChanged: number[] = [];

  beforeAll(async () => {
    const readJson = (path: string) => JSON.parse(readFileSync(`${repositoryRoot}/${path}`, 'utf8')) as never;
    proxy = await startSupervisedProxy(
      () => {
        const received: unknown[] = [];
        const transport = openUpstreamTransport(
          { kind: 'command', command: process.execPath, args: ['test/wire/recording-upstream.mjs'] },
          { cwd: repositoryRoot, onStderrLine: (line) => void (line.startsWith('received ') && received.push(JSON.parse(line.slice('received '.length)))) },
        ) as StdioClientTransport;
        upstreams.push({ transport, received });
        return transport;
      },
      { policy: readJson('test/proxy/fixtures/admin-only.policy.json'), overlay: readJson('test/proxy/fixtures/recording.overlay.json') },
    );
    client = await connect(proxy.url, 'visitor-client');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged.push(Date.now()));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
  });

  it(
    'initializes the new upstream as the client did, replays its subscriptions and log level through the gate, and reports the lists that changed',
    { timeout: 60_000 },
    async () => {
      await client.setLoggingLevel('debug');
      await client.subscribeResource({ uri: 'test://docs/public' });
      // Hidden: answered as unknown, and replayed as a probe, never by name.
      await client.subscribeResource({ uri: 'test://docs/secret' }).catch(() => undefined);
      await client.callTool({ name: 'add-public-tool', arguments: {} });
      await waitFor('list_changed for the added tool', () => (listChanged.length === 1 ? true : undefined), 10_000);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('public-late-1');

      process.kill(upstreams[0]!.transport.pid!, 'SIGKILL');
      await waitFor('the proxy to see the upstream end', () => (proxy.errors.some((message) => message.includes('the upstream session ended')) ? true : undefined), 10_000);
      // The next request opens a new upstream session; the new process has no public-late-1.
      expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('public-late-1');
      expect(upstreams).toHaveLength(2);
      await waitFor('list_changed after the restart', () => (listChanged.length === 2 ? true : undefined), 10_000);

      const received = upstreams[1]!.received as { method?: string; params?: Record<string, unknown> }[];
      const initialize = received.find((message) => message.method === 'initialize');
      expect(initialize?.params?.['clientInfo']).toEqual({ name: 'visitor-client', version: '1.0.0' });
      expect(received.filter((message) => message.method === 'logging/setLevel').map((message) => message.params)).toEqual([{ level: 'debug' }]);
      const subscribed = received.filter((message) => message.method === 'resources/subscribe').map((message) => message.params?.['uri']);
      expect(subscribed).toHaveLength(2);
      expect(subscribed[0]).toBe('test://docs/public');
      expect(subscribed[1]).toMatch(/^test:\/\/mcp-gate-probe\.invalid\//);
      expect(JSON.stringify(received)).not.toContain('secret');
    },
  );
});

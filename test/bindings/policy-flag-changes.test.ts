import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as ServerMcpServer } from '@modelcontextprotocol/server';
import { InMemoryProvider, OpenFeature, ProviderEvents, type Client, type EvaluationContext } from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import type { GateFlagOptions } from '../../src/adapter/flag-resolution.js';
import type { ListKind } from '../../src/adapter/list-changes.js';
import { createGate as createSdkGate } from '../../src/sdk/index.js';
import { createGate as createServerGate } from '../../src/server/index.js';
import { createWireGate } from '../../src/wire/index.js';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { flush } from '../sdk/helpers.js';
import { CountingProvider, flagClientOf, twoFlagPolicy } from './flag-fixtures.js';

// A flag that changes in the provider sends list_changed to exactly the open sessions whose
// visible lists it changed, on every binding, with the real @openfeature/server-sdk: the
// InMemoryProvider's putConfiguration emits ConfigurationChanged with the keys that changed.

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const policy = twoFlagPolicy;

type FlagConfiguration = NonNullable<ConstructorParameters<typeof InMemoryProvider>[0]>;
type FlagSpec = FlagConfiguration[string];

const clientNameOf = (context: EvaluationContext) => (context['client'] as { name?: string } | undefined)?.name;

/**
 * The provider's flags: `new-search` is on only for the client named "insider", and only while
 * `insiderSees` is true (read at evaluation); `beta-tier` is "off" for everyone; `unrelated` is
 * read by no rule. `put` replaces only the flags given, so `flagsChanged` names just those.
 */
class Flags {
  insiderSees = false;
  readonly provider: CountingProvider;
  #configuration: Record<string, FlagSpec>;

  constructor() {
    this.#configuration = {
      'new-search': this.#newSearch(),
      'beta-tier': { variants: { on: 'on', off: 'off' }, defaultVariant: 'off', disabled: false },
      unrelated: { variants: { a: 'a', b: 'b' }, defaultVariant: 'a', disabled: false },
    };
    this.provider = new CountingProvider(this.#configuration);
  }

  #newSearch(): FlagSpec {
    return {
      variants: { on: true, off: false },
      defaultVariant: 'off',
      disabled: false,
      contextEvaluator: (context) => (this.insiderSees && clientNameOf(context) === 'insider' ? 'on' : 'off'),
    };
  }

  /** Flips new-search for the insider (ConfigurationChanged names "new-search"). */
  flipNewSearch(sees: boolean): void {
    this.insiderSees = sees;
    this.#put({ 'new-search': this.#newSearch() });
  }

  /** Changes only the flag no rule reads (ConfigurationChanged names "unrelated"). */
  changeUnrelated(variant: 'a' | 'b'): void {
    this.#put({ unrelated: { variants: { a: 'a', b: 'b' }, defaultVariant: variant, disabled: false } });
  }

  #put(changes: Record<string, FlagSpec>): void {
    this.#configuration = { ...this.#configuration, ...changes };
    this.provider.putConfiguration(this.#configuration);
  }
}

const flagClient = (flags: Flags) => flagClientOf(flags.provider);

const handlersOf = (client: Client) => client.getHandlers(ProviderEvents.ConfigurationChanged).length;

/** Waits (bounded) until `done()`; fails naming what it waited for. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let round = 0; round < 200 && !done(); round++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

/** One open session as a test sees it: its list, and the list_changed notifications it got. */
interface Session {
  readonly notified: ListKind[];
  tools(): Promise<string[]>;
  close(): Promise<void>;
}

interface GatedSetup {
  readonly errors: Error[];
  readonly close: () => void;
  open(clientName: string): Promise<Session>;
}

const toolNames = ['search', 'new-search', 'beta-report'];
const listOf: Record<string, ListKind> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** A real SDK Client on its own server over the in-memory transport (a 2025-era session with an id). */
async function connectSession(server: SdkMcpServer | ServerMcpServer, clientName: string): Promise<Session> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  serverTransport.sessionId = `session-${clientName}`;
  const client = new McpClient({ name: clientName, version: '1.0.0' });
  const notified: ListKind[] = [];
  client.fallbackNotificationHandler = async (notification) => void notified.push(listOf[notification.method] ?? (notification.method as ListKind));
  await Promise.all([server.connect(serverTransport as never), client.connect(clientTransport)]);
  return {
    notified,
    tools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A gate of mcp-gate/sdk or mcp-gate/server, installed on one McpServer per session. */
function installedSetup(
  createGate: (options: { policy: typeof policy; flags: GateFlagOptions; onError: (error: Error) => void }) => { install(server: never): void; close?(): void },
  createServer: () => SdkMcpServer | ServerMcpServer,
): (flags: GateFlagOptions) => GatedSetup {
  return (flags) => {
    const errors: Error[] = [];
    const policyGate = createGate({ policy, flags, onError: (error) => void errors.push(error) });
    return {
      errors,
      close: () => policyGate.close?.(),
      async open(clientName) {
        const server = createServer();
        for (const name of toolNames) (server as SdkMcpServer).registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
        policyGate.install(server as never);
        return connectSession(server, clientName);
      },
    };
  };
}

const serverInfo = { name: 'flag-changes', version: '1.0.0' };

/** A real SDK Client connected to an upstream that registers the test's tools too (the wire binding's upstream). */
async function connectUpstream(): Promise<McpClient> {
  const upstream = createRecordingUpstream();
  for (const name of toolNames) upstream.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await upstream.connect(serverTransport);
  const upstreamClient = new McpClient({ name: 'wire-flags', version: '1.0.0' });
  await upstreamClient.connect(clientTransport);
  return upstreamClient;
}

const setups: readonly { name: string; setup(flags: GateFlagOptions): GatedSetup }[] = [
  { name: 'mcp-gate/sdk', setup: installedSetup(createSdkGate, () => new SdkMcpServer(serverInfo)) },
  { name: 'mcp-gate/server', setup: installedSetup(createServerGate, () => new ServerMcpServer(serverInfo)) },
  {
    name: 'mcp-gate/wire',
    setup(flags) {
      const errors: Error[] = [];
      const wireGate = createWireGate({ policy, flags, onError: (error) => void errors.push(error) });
      return {
        errors,
        close: () => wireGate.close(),
        async open(clientName) {
          // The upstream lists the same tools; the gate's connection answers the downstream session.
          const upstreamClient = await connectUpstream();
          const notified: ListKind[] = [];
          let open = true;
          const connection = await wireGate.attach(upstreamClient, { notify: async (list) => void notified.push(list), isOpen: () => open });
          const input = { request: { sessionId: `session-${clientName}` }, client: { name: clientName } };
          return {
            notified,
            tools: async () =>
              ((await connection.handle({ method: 'tools/list', id: 1 }, input)) as { tools: { name: string }[] }).tools
                .map((tool) => tool.name)
                .filter((name) => toolNames.includes(name)),
            close: async () => {
              open = false;
              await upstreamClient.close();
            },
          };
        },
      };
    },
  },
];

describe.each(setups)('$name: a flag that changes in the provider', ({ setup }) => {
  async function twoSessions() {
    const flags = new Flags();
    const client = await flagClient(flags);
    const gated = setup({ client });
    const insider = await gated.open('insider');
    const outsider = await gated.open('outsider');
    expect(await insider.tools()).toEqual(['search']);
    expect(await outsider.tools()).toEqual(['search']);
    return { flags, client, gated, insider, outsider, close: () => Promise.all([insider.close(), outsider.close()]).then(gated.close) };
  }

  it('sends list_changed only to the session whose view it changed, and its next list matches', async () => {
    const { flags, gated, insider, outsider, close } = await twoSessions();
    flags.flipNewSearch(true);
    await until(() => insider.notified.length > 0, 'the insider to be notified');
    await flush();
    expect(insider.notified).toEqual(['tools']);
    expect(outsider.notified).toEqual([]);
    expect(await insider.tools()).toEqual(['search', 'new-search']);
    expect(await outsider.tools()).toEqual(['search']);
    // And back: the session's kept flags were the new ones, so the flip back is a change again.
    flags.flipNewSearch(false);
    await until(() => insider.notified.length > 1, 'the second notification');
    await flush();
    expect(insider.notified).toEqual(['tools', 'tools']);
    expect(outsider.notified).toEqual([]);
    expect(await insider.tools()).toEqual(['search']);
    expect(gated.errors).toEqual([]);
    await close();
  });

  it('notifies nobody, and resolves nothing, for a flag no rule reads', async () => {
    const { flags, gated, insider, outsider, close } = await twoSessions();
    const before = flags.provider.resolutions;
    flags.changeUnrelated('b');
    // A pass for it would have begun by now; the flip's own pass then comes after it, not with it.
    await flush();
    flags.flipNewSearch(true);
    await until(() => insider.notified.length > 0, 'the insider to be notified');
    await flush();
    expect(insider.notified).toEqual(['tools']);
    expect(outsider.notified).toEqual([]);
    // Only the flip's pass: two sessions, two flags each.
    expect(flags.provider.resolutions - before).toBe(4);
    expect(gated.errors).toEqual([]);
    await close();
  });

  it('coalesces a burst: one resolution per session, one notification for the net change', async () => {
    const { flags, insider, outsider, close } = await twoSessions();
    const before = flags.provider.resolutions;
    flags.flipNewSearch(true);
    flags.flipNewSearch(false);
    flags.flipNewSearch(true);
    await until(() => insider.notified.length > 0, 'the insider to be notified');
    await flush(20);
    expect(insider.notified).toEqual(['tools']);
    expect(outsider.notified).toEqual([]);
    expect(flags.provider.resolutions - before).toBe(4);
    await close();
  });

  it('re-resolves every session when the event names no flag', async () => {
    const { flags, insider, outsider, close } = await twoSessions();
    flags.insiderSees = true; // read at evaluation: a change the provider announces without keys
    flags.provider.events.emit(ProviderEvents.ConfigurationChanged);
    await until(() => insider.notified.length > 0, 'the insider to be notified');
    await flush();
    expect(insider.notified).toEqual(['tools']);
    expect(outsider.notified).toEqual([]);
    await close();
  });

  it('removes its handler from the flag client when the gate is closed; later changes notify nobody', async () => {
    const { flags, client, gated, insider, outsider } = await twoSessions();
    expect(handlersOf(client)).toBe(1);
    gated.close();
    gated.close();
    expect(handlersOf(client)).toBe(0);
    const before = flags.provider.resolutions;
    flags.flipNewSearch(true);
    await flush(20);
    expect(insider.notified).toEqual([]);
    expect(outsider.notified).toEqual([]);
    expect(flags.provider.resolutions).toBe(before);
    await Promise.all([insider.close(), outsider.close()]);
  });
});

describe('following flag changes', () => {
  it('reports a failing notification through onError, never into the provider', async () => {
    const flags = new Flags();
    const client = await flagClient(flags);
    const errors: Error[] = [];
    const wireGate = createWireGate({ policy, flags: { client }, onError: (error) => void errors.push(error) });
    const upstreamClient = await connectUpstream();
    const connection = await wireGate.attach(upstreamClient, {
      notify: async () => {
        throw new Error('the downstream went away');
      },
      isOpen: () => true,
    });
    await connection.handle({ method: 'tools/list', id: 1 }, { request: { sessionId: 's1' }, client: { name: 'insider' } });
    flags.flipNewSearch(true);
    await until(() => errors.length > 0, 'the error report');
    expect(errors.map((error) => error.message)).toEqual(['the downstream went away']);
    wireGate.close();
    await upstreamClient.close();
  });

  it('still notifies when the policy is swapped while the flags resolve (serve re-applies its policy flag on the same event)', async () => {
    const flags = new Flags();
    const client = await flagClient(flags);
    const errors: Error[] = [];
    const policyGate = createSdkGate({ policy, flags: { client }, onError: (error) => void errors.push(error) });
    const server = new SdkMcpServer({ name: 'flag-changes', version: '1.0.0' });
    for (const name of toolNames) server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
    policyGate.install(server);
    const insider = await connectSession(server, 'insider');
    expect(await insider.tools()).toEqual(['search']);
    let release = () => {};
    flags.provider.hold = new Promise((resolve) => (release = resolve));
    const asked = flags.provider.resolutions;
    flags.flipNewSearch(true);
    await until(() => flags.provider.resolutions > asked, 'the re-resolution to begin');
    // The same policy again, as watchPolicyFlag applies it: the swap decides on the flags kept before the flip.
    await policyGate.setPolicy(policy);
    expect(insider.notified).toEqual([]);
    release();
    await until(() => insider.notified.length > 0, 'the insider to be notified');
    expect(insider.notified).toEqual(['tools']);
    expect(await insider.tools()).toEqual(['search', 'new-search']);
    expect(errors).toEqual([]);
    policyGate.close?.();
    await insider.close();
  });

  it("judges an upstream list_changed on the session's flags, not their defaults (wire)", async () => {
    const secretsOn = { secrets: { variants: { on: true, off: false }, defaultVariant: 'on', disabled: false } };
    const client = await flagClientOf(new InMemoryProvider(secretsOn));
    const errors: Error[] = [];
    const wireGate = createWireGate({
      policy: {
        version: 1,
        default: 'allow',
        flags: { secrets: { default: false } },
        rules: [{ id: 'secrets-off', effect: 'deny', appliesTo: { names: ['secret-*'] }, when: { '!': { var: 'flags.secrets' } } }],
      },
      flags: { client },
      onError: (error) => void errors.push(error),
    });
    const upstreamClient = await connectUpstream();
    const notified: ListKind[] = [];
    const connection = await wireGate.attach(upstreamClient, { notify: async (list) => void notified.push(list), isOpen: () => true });
    const input = { request: { sessionId: 's1' }, client: { name: 'insider' } };
    const listed = async () => ((await connection.handle({ method: 'tools/list', id: 1 }, input)) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(await listed()).toContain('secret-drop');
    // The upstream registers secret-late and says so: visible to this session, whose flag is on.
    await connection.handle({ method: 'tools/call', id: 2, params: { name: 'add-secret-tool', arguments: {} } }, input);
    await until(() => notified.length > 0, 'tools/list_changed');
    expect(notified).toEqual(['tools']);
    expect(await listed()).toContain('secret-late');
    expect(errors).toEqual([]);
    wireGate.close();
    await upstreamClient.close();
  });

  it('a gate dropped without close is collected, and its handler leaves the flag client', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const flags = new Flags();
    const client = await flagClient(flags);
    (() => {
      createSdkGate({ policy, flags: { client } });
    })();
    expect(handlersOf(client)).toBe(1);
    for (let round = 0; round < 50 && handlersOf(client) > 0; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(handlersOf(client)).toBe(0);
  });
});

import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  InMemoryProvider,
  OpenFeature,
  ProviderStatus,
  type Client,
  type EvaluationContext,
  type JsonValue,
  type Provider,
  type ResolutionDetails,
} from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { FlagResolutionError, type GateFlagOptions } from '../../src/adapter/flag-resolution.js';
import { PolicyOptionError } from '../../src/core/errors.js';
import { createWireGate, type WireConnection } from '../../src/wire/index.js';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createGate as createSdkGate } from '../../src/sdk/index.js';
import { serverInfo } from '../sdk/fixtures.js';
import { connectInMemory, flush } from '../sdk/helpers.js';
import { bindings, type BindingServer } from './bindings.js';
import { CountingProvider, flagClientOf, twoFlagPolicy } from './flag-fixtures.js';

// Flags inside policies through every binding, with the real @openfeature/server-sdk: the
// gate resolves the flags a policy reads once per request through an OpenFeature client,
// before deciding; a flag that errs or is late holds the declared default (fail closed).

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const policy = twoFlagPolicy;

type FlagConfiguration = NonNullable<ConstructorParameters<typeof InMemoryProvider>[0]>;

function flagConfiguration(newSearch: boolean, betaTier = 'off'): FlagConfiguration {
  return {
    'new-search': { variants: { on: true, off: false }, defaultVariant: newSearch ? 'on' : 'off', disabled: false },
    'beta-tier': {
      variants: { on: 'on', off: 'off' },
      defaultVariant: betaTier,
      disabled: false,
      // Per-caller targeting: the gate's targetingKey is auth.subject, else auth.clientId, else the session id.
      contextEvaluator: (context: EvaluationContext) => ((context['client'] as { name?: string } | undefined)?.name === 'beta-client' ? 'on' : betaTier),
    },
  };
}

const flagClient = flagClientOf;

/** A provider whose resolutions never settle (a flag service that accepted the connection and hangs). */
class HangingProvider implements Provider {
  readonly metadata = { name: 'hanging' };
  readonly runsOn = 'server' as const;
  status = ProviderStatus.READY;
  asked = 0;
  private hang<T>(): Promise<ResolutionDetails<T>> {
    this.asked++;
    return new Promise(() => {});
  }
  resolveBooleanEvaluation(): Promise<ResolutionDetails<boolean>> {
    return this.hang();
  }
  resolveStringEvaluation(): Promise<ResolutionDetails<string>> {
    return this.hang();
  }
  resolveNumberEvaluation(): Promise<ResolutionDetails<number>> {
    return this.hang();
  }
  resolveObjectEvaluation<T extends JsonValue>(): Promise<ResolutionDetails<T>> {
    return this.hang();
  }
}

describe.each(bindings)('$name (flags in policies)', (binding) => {
  async function serve(flags: GateFlagOptions | undefined, clientName = 'test-client') {
    const server: BindingServer = binding.createServer();
    const options = { policy, ...(flags === undefined ? {} : { flags }) };
    const reports = binding.gate(server, options);
    for (const name of ['search', 'new-search', 'beta-report']) server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: `${name} ran` }] }));
    const connected = await binding.connect(server, clientName);
    const listed = async () => (await connected.client.listTools()).tools.map((tool) => tool.name);
    return { reports, connected, listed };
  }

  it('shows what the flags allow, and a flag flip changes what the next request sees', async () => {
    const provider = new CountingProvider(flagConfiguration(false));
    const { reports, connected, listed } = await serve({ client: await flagClient(provider) });
    expect(await listed()).toEqual(['search']);
    provider.putConfiguration(flagConfiguration(true));
    expect(await listed()).toEqual(['search', 'new-search']);
    expect((await connected.client.callTool({ name: 'new-search' })).content).toEqual([{ type: 'text', text: 'new-search ran' }]);
    provider.putConfiguration(flagConfiguration(false));
    expect(await listed()).toEqual(['search']);
    expect(reports.errors).toEqual([]);
    await connected.close();
  });

  it('resolves each flag the policy reads once per request, with the request in the evaluation context', async () => {
    const provider = new CountingProvider(flagConfiguration(true));
    const { connected, listed } = await serve({ client: await flagClient(provider) }, 'beta-client');
    const before = provider.resolutions;
    expect(await listed()).toEqual(['search', 'new-search', 'beta-report']);
    // Two flags, three tools: one resolution per flag for the whole list.
    expect(provider.resolutions - before).toBe(2);
    await connected.client.callTool({ name: 'search' });
    expect(provider.resolutions - before).toBe(4);
    expect(provider.contexts.at(-1)).toMatchObject({ client: { name: 'beta-client' } });
    await connected.close();
  });

  it('decides on the declared defaults when the provider hangs, answering within the timeout, and reports it', async () => {
    const provider = new HangingProvider();
    const { reports, connected, listed } = await serve({ client: await flagClient(provider), timeoutMs: 50 });
    // new-search defaults to false, beta-tier to "off": both hidden (fail closed).
    expect(await listed()).toEqual(['search']);
    expect(provider.asked).toBe(2);
    const [error] = reports.errors;
    expect(error).toBeInstanceOf(FlagResolutionError);
    expect((error as FlagResolutionError).fallbacks.map(({ key, why }) => ({ key, why }))).toEqual([
      { key: 'beta-tier', why: 'not resolved within 50 ms' },
      { key: 'new-search', why: 'not resolved within 50 ms' },
    ]);
    await connected.close();
  });

  it('uses the declared default for a flag the provider does not know, and says why', async () => {
    const provider = new InMemoryProvider({});
    const { reports, connected, listed } = await serve({ client: await flagClient(provider) });
    expect(await listed()).toEqual(['search']);
    expect(reports.errors.map((error) => error.message)).toEqual([
      'mcp-gate: flag "beta-tier" fell back to its default "off" (FLAG_NOT_FOUND: no flag found with key beta-tier); flag "new-search" fell back to its default false (FLAG_NOT_FOUND: no flag found with key new-search)',
    ]);
    await connected.close();
  });

  it('refuses to gate a policy that reads flags without the flags option, naming the flags', () => {
    const server = binding.createServer();
    expect(() => binding.gate(server, { policy })).toThrow(PolicyOptionError);
    expect(() => binding.gate(binding.createServer(), { policy })).toThrow(
      'mcp-gate: the policy reads flags "beta-tier", "new-search": give the gate option "flags" with an OpenFeature client (flags: { client: OpenFeature.getClient() })',
    );
  });
});

describe('createWireGate (flags in policies)', () => {
  async function attach(client: Client, timeoutMs?: number) {
    const errors: Error[] = [];
    const gate = createWireGate({
      policy: {
        version: 1,
        default: 'allow',
        flags: { secrets: { default: false } },
        rules: [{ id: 'secrets-off', effect: 'deny', appliesTo: { names: ['secret-*'] }, when: { '!': { var: 'flags.secrets' } } }],
      },
      flags: { client, ...(timeoutMs === undefined ? {} : { timeoutMs }), headers: ['x-team'] },
      onError: (error) => errors.push(error),
    });
    const upstream = createRecordingUpstream();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await upstream.connect(serverTransport);
    const mcpClient = new McpClient({ name: 'wire-flags', version: '1.0.0' });
    await mcpClient.connect(clientTransport);
    const connection: WireConnection = await gate.attach(mcpClient, { notify: async () => {}, isOpen: () => true });
    const names = async (clientName = 'any') =>
      (
        (await connection.handle({ method: 'tools/list', id: 1 }, { request: { headers: { 'x-team': 'red' } }, client: { name: clientName } })) as {
          tools: { name: string }[];
        }
      ).tools.map((tool) => tool.name);
    return { errors, names, connection, close: () => mcpClient.close() };
  }

  it('resolves the flags before a list, and passes allow-listed headers to the provider', async () => {
    const provider = new CountingProvider({ secrets: { variants: { on: true, off: false }, defaultVariant: 'off', disabled: false } });
    const { names, close } = await attach(await flagClient(provider));
    expect((await names()).filter((name) => name.startsWith('secret-'))).toEqual([]);
    provider.putConfiguration({ secrets: { variants: { on: true, off: false }, defaultVariant: 'on', disabled: false } });
    expect((await names()).filter((name) => name.startsWith('secret-'))).toEqual(['secret-drop', 'secret-meta']);
    expect(provider.contexts.at(-1)).toMatchObject({ request: { headers: { 'x-team': 'red' } } });
    await close();
  });

  it('keys cached lists by the flag values: two callers equal in all the policy reads but their flags get their own lists', async () => {
    const secrets = { variants: { on: true, off: false }, defaultVariant: 'off', disabled: false };
    const byClient = (context: EvaluationContext) => ((context['client'] as { name?: string } | undefined)?.name === 'insider' ? 'on' : 'off');
    const provider = new CountingProvider({ secrets: { ...secrets, contextEvaluator: byClient } });
    const { names, close } = await attach(await flagClient(provider));
    const secretsOf = async (clientName: string) => (await names(clientName)).filter((name) => name.startsWith('secret-'));
    for (let round = 0; round < 2; round++) {
      expect(await secretsOf('insider')).toEqual(['secret-drop', 'secret-meta']);
      expect(await secretsOf('outsider')).toEqual([]);
    }
    await close();
  });

  it('hides what the default hides when the provider hangs', async () => {
    const { names, errors, close } = await attach(await flagClient(new HangingProvider()), 30);
    expect((await names()).filter((name) => name.startsWith('secret-'))).toEqual([]);
    expect(errors.map((error) => error.message)).toEqual(['mcp-gate: flag "secrets" fell back to its default false (not resolved within 30 ms)']);
    await close();
  });
});

describe('setPolicy on a gate resolving flags (mcp-gate/sdk)', () => {
  const showNewSearchByFlag = {
    version: 1 as const,
    default: 'allow' as const,
    flags: { 'new-search': { default: false } },
    rules: [{ id: 'new-search-off', effect: 'deny' as const, appliesTo: { names: ['new-search'] }, when: { '!': { var: 'flags.new-search' } } }],
  };
  const hideNewSearch = { version: 1 as const, default: 'allow' as const, rules: [{ id: 'no-new-search', effect: 'deny' as const, appliesTo: { names: ['new-search'] } }] };
  const showEverything = { version: 1 as const, default: 'allow' as const, rules: [] };

  /** A session that listed with flag new-search on (the provider's answer, not the declared default). */
  async function listedWithFlagOn() {
    const provider = new CountingProvider(flagConfiguration(true));
    const policyGate = createSdkGate({ policy: showNewSearchByFlag, flags: { client: await flagClient(provider) } });
    const server = new SdkMcpServer(serverInfo);
    for (const name of ['search', 'new-search']) server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
    policyGate.install(server);
    const connected = await connectInMemory(server, {}, 'flags');
    expect((await connected.client.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'new-search']);
    return { policyGate, connected };
  }

  it("decides a swap's list_changed on the session's flag values: sent when the new policy hides what the flag showed", async () => {
    const { policyGate, connected } = await listedWithFlagOn();
    await policyGate.setPolicy(hideNewSearch);
    await flush();
    expect(connected.notifications).toEqual(['notifications/tools/list_changed']);
    await connected.close();
  });

  it('and not sent when the new policy shows what the flag showed', async () => {
    const { policyGate, connected } = await listedWithFlagOn();
    await policyGate.setPolicy(showEverything);
    await flush();
    expect(connected.notifications).toEqual([]);
    await connected.close();
  });
});

import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryProvider, OpenFeature, type Client } from '@openfeature/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecisionEvent } from '../../src/adapter/decision-events.js';
import { decidedBeforeResolution, decisionFlagsOf } from '../../src/adapter/decision-flags.js';
import { createRequestContext } from '../../src/core/context.js';
import { withFlagValues } from '../../src/core/flag-values.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate } from '../../src/sdk/index.js';
import { createDecisionLogger, type DecisionRecord } from '../../src/serve/decision-log.js';
import { flagClientOf, twoFlagPolicy } from '../bindings/flag-fixtures.js';

// The decision log records the flag values a decision used, and which held their declared
// defaults and why; only the flags the policy reads.

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const policy = twoFlagPolicy;

describe('decisionFlagsOf', () => {
  it('reports only the flags the policy reads, with the fallbacks among them', () => {
    const context = withFlagValues(createRequestContext(), { 'new-search': true, 'beta-tier': 'off', 'not-read': 'secret' }, [
      { key: 'beta-tier', value: 'off', why: 'not resolved within 200 ms' },
      { key: 'not-read', value: 'secret', why: 'FLAG_NOT_FOUND' },
    ]);
    expect(decisionFlagsOf(policy, context)).toEqual({
      values: { 'new-search': true, 'beta-tier': 'off' },
      fallbacks: [{ key: 'beta-tier', value: 'off', why: 'not resolved within 200 ms' }],
    });
  });

  it('says a decision made before the flags were resolved used every declared default', () => {
    expect(decisionFlagsOf(policy, createRequestContext())).toEqual({
      values: { 'new-search': false, 'beta-tier': 'off' },
      fallbacks: [
        { key: 'beta-tier', value: 'off', why: decidedBeforeResolution },
        { key: 'new-search', value: false, why: decidedBeforeResolution },
      ],
    });
  });

  it('is undefined for a policy that reads no flag', () => {
    const plain = compilePolicy({ version: 1, default: 'allow' });
    expect(decisionFlagsOf(plain, withFlagValues(createRequestContext(), { 'new-search': true }))).toBeUndefined();
  });
});

const flagClient = (configuration: ConstructorParameters<typeof InMemoryProvider>[0]) => flagClientOf(new InMemoryProvider(configuration));

/** A gated McpServer 1.32 with a real client, whose decisions go to `onDecision`. */
async function serve(client: Client, onDecision: (event: DecisionEvent) => void) {
  const server = new McpServer({ name: 'decision-flags', version: '1.0.0' });
  for (const name of ['search', 'new-search', 'beta-report']) server.registerTool(name, {}, async () => ({ content: [{ type: 'text', text: name }] }));
  createGate({ policy, flags: { client }, onDecision, onError: () => {} }).install(server);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const mcp = new McpClient({ name: 'decision-flags-client', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), mcp.connect(clientTransport)]);
  return { mcp, close: () => mcp.close() };
}

describe('decision events and the decision log (mcp-gate/sdk, real InMemoryProvider)', () => {
  it('carry the flag values each decision used, and the fallbacks with why', async () => {
    // new-search is on; beta-tier is unknown to the provider: it holds its default "off".
    const client = await flagClient({ 'new-search': { variants: { on: true, off: false }, defaultVariant: 'on', disabled: false } });
    const events: DecisionEvent[] = [];
    const { mcp, close } = await serve(client, (event) => void events.push(event));
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'new-search']);
    expect(await mcp.callTool({ name: 'beta-report' })).toMatchObject({ isError: true }); // hidden ≡ unknown
    const expected = {
      values: { 'new-search': true, 'beta-tier': 'off' },
      fallbacks: [{ key: 'beta-tier', value: 'off', why: 'FLAG_NOT_FOUND: no flag found with key beta-tier' }],
    };
    expect(events.map((event) => [event.method, event.flags])).toEqual([
      ['tools/list', expected],
      ['tools/call', expected],
    ]);
    // Spread, as a listener that logs `{ ...event }` does: the lazy field is there too.
    expect({ ...events[1]! }.flags).toEqual(expected);

    const lines: string[] = [];
    const log = createDecisionLogger({ write: (line) => void lines.push(line) });
    for (const event of events) log(event);
    const records = lines.map((line) => JSON.parse(line) as DecisionRecord);
    for (const record of records) {
      expect(record.flags).toEqual({ 'new-search': true, 'beta-tier': 'off' });
      // The code, not the provider's message (which may quote the evaluation context).
      expect(record.flagFallbacks).toEqual({ 'beta-tier': 'FLAG_NOT_FOUND' });
    }
    expect(records[1]).toMatchObject({ method: 'tools/call', allowed: false, reason: 'rule', ruleId: 'beta-off' });
    await close();
  });

  it('log no flagFallbacks when every flag resolved, and no flags for a policy that reads none', async () => {
    const client = await flagClient({
      'new-search': { variants: { on: true, off: false }, defaultVariant: 'off', disabled: false },
      'beta-tier': { variants: { on: 'on', off: 'off' }, defaultVariant: 'on', disabled: false },
    });
    const lines: string[] = [];
    const { mcp, close } = await serve(client, createDecisionLogger({ write: (line) => void lines.push(line) }));
    await mcp.listTools();
    const [record] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(record).toMatchObject({ method: 'tools/list', flags: { 'new-search': false, 'beta-tier': 'on' } });
    expect(record).not.toHaveProperty('flagFallbacks');
    await close();

    const plainLines: string[] = [];
    const plain = new McpServer({ name: 'plain', version: '1.0.0' });
    plain.registerTool('search', {}, async () => ({ content: [{ type: 'text', text: 'search' }] }));
    createGate({ policy: { version: 1, default: 'allow' }, onDecision: createDecisionLogger({ write: (line) => void plainLines.push(line) }) }).install(plain);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const plainClient = new McpClient({ name: 'plain-client', version: '1.0.0' });
    await Promise.all([plain.connect(serverTransport), plainClient.connect(clientTransport)]);
    await plainClient.callTool({ name: 'search' });
    expect(JSON.parse(plainLines[0]!)).not.toHaveProperty('flags');
    await plainClient.close();
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryProvider, OpenFeature, type Provider, type ResolutionDetails } from '@openfeature/server-sdk';
import { afterAll, afterEach, expect, it } from 'vitest';
import { otelDecisions } from '../../src/otel/index.js';
import { gate } from '../../src/sdk/index.js';
import { flagClientOf, twoFlagPolicy } from '../bindings/flag-fixtures.js';
import { createTelemetry, evaluations, type Telemetry } from './telemetry.js';

// A decision on a policy that reads feature flags records, on its feature_flag.evaluation event,
// the flag values it decided on and which of them held their declared default: with the real
// OpenFeature SDK resolving them and the real OTel SDK recording.

let telemetry: Telemetry | undefined;
afterEach(async () => telemetry?.shutdown());
afterAll(async () => OpenFeature.clearProviders());

/** A provider whose string flags cannot be resolved: beta-tier holds its declared default "off". */
class NoStringsProvider extends InMemoryProvider {
  override resolveStringEvaluation(): Promise<ResolutionDetails<string>> {
    return Promise.reject(new Error('the flag service is down'));
  }
}

async function callSearch(provider: Provider): Promise<Record<string, unknown>[]> {
  telemetry = createTelemetry();
  const server = new McpServer({ name: 'otel-flags', version: '1.0.0' });
  const { tracerProvider, meterProvider } = telemetry;
  gate(server, { policy: twoFlagPolicy, flags: { client: await flagClientOf(provider) }, ...otelDecisions({ tracerProvider, meterProvider }) });
  server.registerTool('new-search', {}, async () => ({ content: [] }));
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'otel-flags', version: '1.0.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  await client.callTool({ name: 'new-search', arguments: {} });
  await client.close();
  return (await telemetry.spans()).flatMap((span) => evaluations(span));
}

const configuration = {
  'new-search': { variants: { on: true, off: false }, defaultVariant: 'on', disabled: false },
  'beta-tier': { variants: { gold: 'gold', off: 'off' }, defaultVariant: 'gold', disabled: false },
};

it('records the flag values a decision read as mcp_gate.flag.<key>', async () => {
  const [evaluation, ...others] = await callSearch(new InMemoryProvider(configuration));
  expect(others).toEqual([]);
  expect(evaluation).toMatchObject({
    'feature_flag.key': 'tool:new-search',
    'feature_flag.result.variant': 'visible',
    'mcp_gate.flag.new-search': true,
    'mcp_gate.flag.beta-tier': 'gold',
  });
  expect(evaluation).not.toHaveProperty('mcp_gate.flag.fallbacks');
});

it('names the flags that held their declared default in mcp_gate.flag.fallbacks', async () => {
  const [evaluation] = await callSearch(new NoStringsProvider(configuration));
  expect(evaluation).toMatchObject({ 'mcp_gate.flag.new-search': true, 'mcp_gate.flag.beta-tier': 'off', 'mcp_gate.flag.fallbacks': ['beta-tier'] });
});

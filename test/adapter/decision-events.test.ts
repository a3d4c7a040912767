import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { withFieldReadsOnly, type DecisionEvent } from '../../src/adapter/decision-events.js';
import { gate } from '../../src/sdk/index.js';
import { registerFixtures, serverInfo } from '../sdk/fixtures.js';
import { connectInMemory, type Connected } from '../sdk/helpers.js';
import { instrumentedPolicy } from './decision-helpers.js';

// Two shapes of one event: listeners of yours get own enumerable fields (they may spread or
// stringify the event); a listener declared withFieldReadsOnly (mcp-gate/otel) gets the cheaper
// class instance. Both read the same values, and the explanation is computed once per event.

const fields = ['time', 'requestId', 'sessionId', 'method', 'primitive', 'uri', 'allowed', 'reason', 'ruleId', 'message', 'policyRevision', 'context'] as const;

let connected: Connected[] = [];
afterEach(async () => {
  await Promise.all(connected.map((connection) => connection.close()));
  connected = [];
});

async function decideHiddenCall(listener: (event: DecisionEvent) => void): Promise<{ explains: () => number }> {
  const { policy, explains } = instrumentedPolicy({ version: 1, default: 'allow', rules: [{ id: 'admins-only', effect: 'deny', appliesTo: { groups: ['admin'] } }] });
  const server = new McpServer(serverInfo);
  gate(server, { policy, onDecision: listener });
  registerFixtures(server);
  const connection = await connectInMemory(server);
  connected.push(connection);
  await connection.client.callTool({ name: 'admin-reset', arguments: { confirm: true } });
  return { explains };
}

describe('withFieldReadsOnly', () => {
  it('gives the listener the same fields by name as the event a listener of yours gets', async () => {
    let own: DecisionEvent | undefined;
    let byField: DecisionEvent | undefined;
    await decideHiddenCall((event) => (own = event));
    await decideHiddenCall(withFieldReadsOnly((event) => (byField = event)));

    const read = (event: DecisionEvent) => Object.fromEntries(fields.map((field) => [field, event[field]]));
    const { time: ownTime, context: ownContext, policyRevision: ownRevision, ...ownRest } = read(own!);
    const { time, context, policyRevision, ...rest } = read(byField!);
    expect(rest).toEqual(ownRest);
    expect(rest).toMatchObject({ method: 'tools/call', primitive: { kind: 'tool', name: 'admin-reset' }, allowed: false, reason: 'rule', ruleId: 'admins-only' });
    expect(new Date(time as string).toISOString()).toBe(time);
    expect(new Date(ownTime as string).toISOString()).toBe(ownTime);
    expect((context as DecisionEvent['context']).request.method).toBe('tools/call');
    expect(policyRevision).toBe(ownRevision);
    expect(ownContext).toBeDefined();
  });

  it('leaves a listener of yours an event whose every field spreads and stringifies', async () => {
    let own: DecisionEvent | undefined;
    await decideHiddenCall((event) => (own = event));
    expect(Object.keys({ ...own! })).toEqual(fields);
    expect(JSON.parse(JSON.stringify({ ...own!, context: undefined }))).toMatchObject({ reason: 'rule', ruleId: 'admins-only', message: 'denied by rule "admins-only"' });
  });

  it('explains each decision once, when a field of the explanation is first read, for either shape', async () => {
    for (const mark of [(listener: (event: DecisionEvent) => void) => listener, withFieldReadsOnly]) {
      let event: DecisionEvent | undefined;
      const { explains } = await decideHiddenCall(mark((decided) => (event = decided)));
      expect(explains()).toBe(0);
      expect([event!.reason, event!.ruleId, event!.message, event!.reason]).toEqual(['rule', 'admins-only', 'denied by rule "admins-only"', 'rule']);
      expect(explains()).toBe(1);
    }
  });
});

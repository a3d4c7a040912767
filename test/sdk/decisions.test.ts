import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePolicy, PolicyOptionError, type PolicyDocument } from '../../src/index.js';
import { createGate, gate, type DecisionEvent } from '../../src/sdk/index.js';
import { expectRequestFields, instrumentedPolicy, listEvent, stableFields } from '../adapter/decision-helpers.js';
import { registerFixtures, serverInfo } from './fixtures.js';
import { connectInMemory, type Connected } from './helpers.js';

const document: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [
    { id: 'admins-only', effect: 'deny', appliesTo: { groups: ['admin'] } },
    { id: 'no-secrets', effect: 'deny', appliesTo: { names: ['secret*', 'admin-log'] } },
  ],
};

let connected: Connected | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

async function connectGated(options: Parameters<typeof createGate>[0]): Promise<Connected> {
  const server = new McpServer(serverInfo);
  gate(server, options);
  registerFixtures(server);
  return (connected = await connectInMemory(server));
}

describe('onDecision', () => {
  it('reports each call, get, read and completion of a named primitive once, allowed or hidden', async () => {
    const events: DecisionEvent[] = [];
    const { client } = await connectGated({ policy: document, onDecision: (event) => events.push(event) });

    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await client.callTool({ name: 'admin-reset', arguments: { confirm: true } });
    await client.callTool({ name: 'never-registered', arguments: {} });
    await client.getPrompt({ name: 'greeting', arguments: { name: 'Ada' } });
    await client.getPrompt({ name: 'secret-prompt', arguments: { topic: 'x' } }).catch(() => undefined);
    await client.readResource({ uri: 'file:///readme.md' });
    await client.readResource({ uri: 'file:///secrets.txt' }).catch(() => undefined);
    await client.readResource({ uri: 'users://1/profile' });
    await client.complete({ ref: { type: 'ref/prompt', name: 'greeting' }, argument: { name: 'name', value: 'A' } });
    await client.complete({ ref: { type: 'ref/resource', uri: 'logs://{day}' }, argument: { name: 'day', value: 'm' } }).catch(() => undefined);

    const allowedByDefault = { allowed: true, reason: 'default', message: 'no rule matched; default is allow' };
    expect(events.map(stableFields)).toEqual([
      { sessionId: undefined, method: 'tools/call', primitive: { kind: 'tool', name: 'echo' }, ...allowedByDefault },
      {
        sessionId: undefined,
        method: 'tools/call',
        primitive: { kind: 'tool', name: 'admin-reset' },
        allowed: false,
        reason: 'rule',
        ruleId: 'admins-only',
        message: 'denied by rule "admins-only"',
      },
      { sessionId: undefined, method: 'prompts/get', primitive: { kind: 'prompt', name: 'greeting' }, ...allowedByDefault },
      {
        sessionId: undefined,
        method: 'prompts/get',
        primitive: { kind: 'prompt', name: 'secret-prompt' },
        allowed: false,
        reason: 'rule',
        ruleId: 'no-secrets',
        message: 'denied by rule "no-secrets"',
      },
      { sessionId: undefined, method: 'resources/read', primitive: { kind: 'resource', name: 'readme' }, uri: 'file:///readme.md', ...allowedByDefault },
      {
        sessionId: undefined,
        method: 'resources/read',
        primitive: { kind: 'resource', name: 'secrets' },
        uri: 'file:///secrets.txt',
        allowed: false,
        reason: 'rule',
        ruleId: 'no-secrets',
        message: 'denied by rule "no-secrets"',
      },
      { sessionId: undefined, method: 'resources/read', primitive: { kind: 'resourceTemplate', name: 'user-profile' }, ...allowedByDefault },
      { sessionId: undefined, method: 'completion/complete', primitive: { kind: 'prompt', name: 'greeting' }, ...allowedByDefault },
      {
        sessionId: undefined,
        method: 'completion/complete',
        primitive: { kind: 'resourceTemplate', name: 'admin-log' },
        allowed: false,
        reason: 'rule',
        ruleId: 'no-secrets',
        message: 'denied by rule "no-secrets"',
      },
    ]);
    const requestIds = events.map((event) => event.requestId);
    expect(requestIds.every((id) => typeof id === 'number')).toBe(true);
    expect(new Set(requestIds).size).toBe(events.length);
    expectRequestFields(events, compilePolicy(document).revision, 'test-client');
  });

  it('summarises each list request, cached or not, with counts of listed and withheld registrations', async () => {
    const events: DecisionEvent[] = [];
    const { client } = await connectGated({ policy: document, onDecision: (event) => events.push(event) });

    await client.listTools();
    await client.listTools();
    await client.listPrompts();
    await client.listResources();
    await client.listResourceTemplates();

    expect(events.map(stableFields)).toEqual([
      listEvent('tools/list', 1, 1),
      listEvent('tools/list', 1, 1),
      listEvent('prompts/list', 1, 1),
      listEvent('resources/list', 2, 2),
      listEvent('resources/templates/list', 1, 1),
    ]);
  });

  it('keeps answering when onDecision throws, and reports the error through onError', async () => {
    const errors: Error[] = [];
    const { client } = await connectGated({
      policy: document,
      onDecision: () => {
        throw new Error('decision log is full');
      },
      onError: (error) => errors.push(error),
    });

    expect(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })).toEqual({ content: [{ type: 'text', text: 'still here' }] });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(errors.map((error) => error.message)).toEqual(['decision log is full', 'decision log is full']);
  });

  it('costs no explain when no one listens, none inside the request when someone does, one per event read, and never uses policy.contextKey', async () => {
    const quiet = instrumentedPolicy(document);
    const { client } = await connectGated({ policy: quiet.policy });
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await client.callTool({ name: 'admin-reset', arguments: { confirm: true } });
    await client.getPrompt({ name: 'secret-prompt', arguments: { topic: 'x' } }).catch(() => undefined);
    expect(quiet.explains()).toBe(0);
    await connected!.close();

    const listened = instrumentedPolicy(document);
    const events: DecisionEvent[] = [];
    const second = await connectGated({ policy: listened.policy, onDecision: (event) => events.push(event) });
    await second.client.listTools();
    await second.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await second.client.callTool({ name: 'admin-reset', arguments: { confirm: true } });
    expect(events.map((event) => event.method)).toEqual(['tools/list', 'tools/call', 'tools/call']);
    // The explanation waits until a listener reads it (serve's log does so after the response).
    expect(listened.explains()).toBe(0);
    expect(events.map((event) => [event.reason, event.message, event.ruleId, event.reason])).toHaveLength(3);
    expect(listened.explains()).toBe(2);
  });

  it('must be a function', () => {
    const create = () => createGate({ policy: document, onDecision: 'log' as never });
    expect(create).toThrow(new PolicyOptionError('mcp-gate: option "onDecision" must be a function'));
    expect(create).toThrow(PolicyOptionError);
  });
});

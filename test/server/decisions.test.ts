import { describe, expect, it } from 'vitest';
import { PolicyOptionError } from '../../src/index.js';
import { createGate, type DecisionEvent } from '../../src/server/index.js';
import { expectRequestFields, instrumentedPolicy, listEvent, stableFields } from '../adapter/decision-helpers.js';
import { createGatedHandler, registryPolicy, registryPolicyDocument, reportExtension } from './fixtures.js';
import { inProcess, postModern, type Endpoint } from './http.js';

const admin = { headers: { 'x-role': 'admin' }, capabilities: { extensions: { [reportExtension]: {} } } };
const allowedByDefault = { allowed: true, reason: 'default', message: 'no rule matched; default is allow' };
const deniedToNonAdmins = { allowed: false, reason: 'rule', ruleId: 'admins-only', message: 'denied by rule "admins-only"' };

async function withEndpoint(endpoint: Endpoint, run: (endpoint: Endpoint) => Promise<void>): Promise<void> {
  try {
    await run(endpoint);
  } finally {
    await endpoint.close();
  }
}

describe('onDecision (mcp-gate/server)', () => {
  it('reports each call, get, read and completion of a named primitive once, with the JSON-RPC id and the request context', async () => {
    const events: DecisionEvent[] = [];
    await withEndpoint(inProcess(createGatedHandler({ onDecision: (event) => events.push(event) })), async (endpoint) => {
      let id = 100;
      const post = (method: string, params: Record<string, unknown>) => postModern(endpoint, method, params, { id: ++id, headers: { 'x-trace': 't-1' } });
      await post('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      await post('tools/call', { name: 'admin-reset', arguments: {} });
      await post('tools/call', { name: 'export', arguments: {} });
      await post('tools/call', { name: 'report', arguments: {} });
      await post('tools/call', { name: 'report__2.0.0', arguments: {} });
      await post('tools/call', { name: 'never-registered', arguments: {} });
      await post('prompts/get', { name: 'admin-brief', arguments: { topic: 'ops' } });
      await post('resources/read', { uri: 'docs://audit' });
      await post('resources/read', { uri: 'items://1' });
      await post('resources/read', { uri: 'vault://1' });
      await post('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } });
    });

    expect(events.map(stableFields)).toEqual([
      { sessionId: undefined, method: 'tools/call', primitive: { kind: 'tool', name: 'echo' }, ...allowedByDefault },
      { sessionId: undefined, method: 'tools/call', primitive: { kind: 'tool', name: 'admin-reset' }, ...deniedToNonAdmins },
      {
        sessionId: undefined,
        method: 'tools/call',
        primitive: { kind: 'tool', name: 'export' },
        allowed: false,
        reason: 'requirement',
        message: `requires client capability "extensions.${reportExtension}"`,
      },
      // The versioned tool under its public name; its internal key decides nothing and reports nothing.
      { sessionId: undefined, method: 'tools/call', primitive: { kind: 'tool', name: 'report' }, ...allowedByDefault },
      { sessionId: undefined, method: 'prompts/get', primitive: { kind: 'prompt', name: 'admin-brief' }, ...deniedToNonAdmins },
      { sessionId: undefined, method: 'resources/read', primitive: { kind: 'resource', name: 'audit' }, uri: 'docs://audit', ...deniedToNonAdmins },
      { sessionId: undefined, method: 'resources/read', primitive: { kind: 'resourceTemplate', name: 'items' }, ...allowedByDefault },
      { sessionId: undefined, method: 'resources/read', primitive: { kind: 'resourceTemplate', name: 'vault' }, ...deniedToNonAdmins },
      { sessionId: undefined, method: 'completion/complete', primitive: { kind: 'prompt', name: 'greet' }, ...allowedByDefault },
    ]);
    expect(events.map((event) => event.requestId)).toEqual([101, 102, 103, 104, 107, 108, 109, 110, 111]);
    expectRequestFields(events, registryPolicy.revision, 'test-client');
    expect(events.every((event) => event.context.request.headers['x-trace'] === 't-1')).toBe(true);
  });

  it('summarises each list request with counts of listed and withheld registrations', async () => {
    const events: DecisionEvent[] = [];
    await withEndpoint(inProcess(createGatedHandler({ onDecision: (event) => events.push(event) })), async (endpoint) => {
      await postModern(endpoint, 'tools/list', {});
      await postModern(endpoint, 'tools/list', {}, admin);
      await postModern(endpoint, 'prompts/list', {});
      await postModern(endpoint, 'resources/list', {});
      await postModern(endpoint, 'resources/templates/list', {}, admin);
    });

    expect(events.map(stableFields)).toEqual([
      // echo and report (1.0.0) of five registrations; admin-reset, export and report 2.0.0 withheld.
      listEvent('tools/list', 2, 3),
      // Every public tool; report 1.0.0 gave way to 2.0.0.
      listEvent('tools/list', 4, 1),
      listEvent('prompts/list', 1, 1),
      listEvent('resources/list', 2, 2),
      listEvent('resources/templates/list', 2, 0),
    ]);
  });

  it('keeps answering when onDecision throws, and reports the error through onError', async () => {
    const errors: Error[] = [];
    const onDecision = () => {
      throw new Error('decision log is full');
    };
    await withEndpoint(inProcess(createGatedHandler({ onDecision, onError: (error) => errors.push(error) })), async (endpoint) => {
      const answer = await postModern(endpoint, 'tools/call', { name: 'echo', arguments: { text: 'still here' } });
      expect(answer.body.result).toMatchObject({ content: [{ type: 'text', text: 'still here' }] });
    });
    expect(errors.map((error) => error.message)).toEqual(['decision log is full']);
  });

  it('costs no explain when no one listens, none inside the request when someone does, one per event read, and never uses policy.contextKey', async () => {
    const run = async (endpoint: Endpoint) => {
      await postModern(endpoint, 'tools/list', {});
      await postModern(endpoint, 'tools/call', { name: 'echo', arguments: { text: 'x' } });
      await postModern(endpoint, 'tools/call', { name: 'admin-reset', arguments: {} });
    };
    const quiet = instrumentedPolicy(registryPolicyDocument);
    await withEndpoint(inProcess(createGatedHandler({ policy: quiet.policy })), run);
    expect(quiet.explains()).toBe(0);

    const listened = instrumentedPolicy(registryPolicyDocument);
    const events: DecisionEvent[] = [];
    await withEndpoint(inProcess(createGatedHandler({ policy: listened.policy, onDecision: (event) => events.push(event) })), run);
    expect(events.map((event) => event.method)).toEqual(['tools/list', 'tools/call', 'tools/call']);
    // The explanation waits until a listener reads it (serve's log does so after the response).
    expect(listened.explains()).toBe(0);
    expect(events.map((event) => [event.reason, event.message, event.ruleId, event.reason])).toHaveLength(3);
    expect(listened.explains()).toBe(2);
  });

  it('must be a function', () => {
    const create = () => createGate({ policy: registryPolicy, onDecision: 'log' as never });
    expect(create).toThrow(new PolicyOptionError('mcp-gate: option "onDecision" must be a function'));
    expect(create).toThrow(PolicyOptionError);
  });
});

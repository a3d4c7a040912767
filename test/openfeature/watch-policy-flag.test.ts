import { afterAll, describe, expect, it } from 'vitest';
import { OpenFeature, ProviderEvents } from '@openfeature/server-sdk';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { Policy } from '../../src/core/policy/types.js';
import { PolicyFlagError, readPolicyFlag, watchPolicyFlag } from '../../src/openfeature/index.js';
import { createGate } from '../../src/sdk/index.js';
import { connectInMemory, flush } from '../sdk/helpers.js';
import { allowEverything, createInMemoryClient, createRecorder, createServer, hideBeta, hideEverything, policyFlag, policyFlagKey } from './helpers.js';

afterAll(async () => {
  await OpenFeature.clearProviders();
});

const toolNames = async (client: { listTools(): Promise<{ tools: { name: string }[] }> }) => (await client.listTools()).tools.map((tool) => tool.name);

async function setUp(initialFlag: unknown) {
  const { client, provider } = await createInMemoryClient(policyFlag(initialFlag));
  const policyGate = createGate({ policy: allowEverything });
  const server = createServer();
  policyGate.install(server);
  const mcp = await connectInMemory(server);
  const errors = createRecorder<PolicyFlagError>();
  const policies = createRecorder<Policy>();
  return { client, provider, policyGate, mcp, errors, policies };
}

describe('readPolicyFlag', () => {
  it('compiles the object flag into a policy', async () => {
    const { client } = await createInMemoryClient(policyFlag(hideBeta));
    const policy = await readPolicyFlag(client, policyFlagKey);
    expect(policy.revision).toBe(compilePolicy(hideBeta).revision);
  });

  it('throws a PolicyFlagError naming the flag and every problem path of an invalid document', async () => {
    const { client } = await createInMemoryClient(policyFlag({ version: 1, default: 'allow', rules: [{ id: 'r', effect: 'maybe', when: { startswith: [1, 2] } }] }));
    const error = await readPolicyFlag(client, policyFlagKey).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PolicyFlagError);
    const flagError = error as PolicyFlagError;
    expect(flagError.flagKey).toBe(policyFlagKey);
    expect(flagError.problem).toBe('invalid_document');
    expect(flagError.issues.map((issue) => issue.path)).toContain('rules[0].effect');
    expect(flagError.message.split('\n')[0]).toMatch(/^policy flag "mcp-policy" not applied \(\d+ issues?\):$/);
    expect(flagError.message).toContain('  rules[0].effect: ');
  });

  it('throws rather than returning a default for a missing flag or a flag of the wrong type', async () => {
    const { client } = await createInMemoryClient({ ...policyFlag(hideBeta), 'a-string': { variants: { on: 'text' }, defaultVariant: 'on', disabled: false } });
    const missing = (await readPolicyFlag(client, 'no-such-flag').catch((caught: unknown) => caught)) as PolicyFlagError;
    expect(missing).toBeInstanceOf(PolicyFlagError);
    expect([missing.problem, missing.errorCode, missing.flagKey]).toEqual(['flag_error', 'FLAG_NOT_FOUND', 'no-such-flag']);
    const wrongType = (await readPolicyFlag(client, 'a-string').catch((caught: unknown) => caught)) as PolicyFlagError;
    expect([wrongType.problem, wrongType.errorCode]).toEqual(['flag_error', 'TYPE_MISMATCH']);
    expect(wrongType.message).toBe('policy flag "a-string" not applied (1 issue):\n  flag evaluation failed (TYPE_MISMATCH)');
  });

  it('passes compile options to compilePolicy (strict turns a warning into a rejection)', async () => {
    const upperCaseHeader = { version: 1, default: 'deny', rules: [{ id: 'canary', effect: 'allow', when: { '==': [{ var: 'request.headers.X-Canary' }, '1'] } }] };
    const { client } = await createInMemoryClient(policyFlag(upperCaseHeader));
    expect((await readPolicyFlag(client, policyFlagKey)).warnings?.map((issue) => issue.code)).toEqual(['header_case']);
    const error = (await readPolicyFlag(client, policyFlagKey, { compile: { strict: true } }).catch((caught: unknown) => caught)) as PolicyFlagError;
    expect([error.problem, error.issues.map((issue) => issue.path)]).toEqual(['invalid_document', ['rules[0].when["=="][0].var']]);
  });

  it('throws for a disabled flag (the SDK answers with the caller default)', async () => {
    const { client } = await createInMemoryClient({ [policyFlagKey]: { variants: { current: hideBeta }, defaultVariant: 'current', disabled: true } });
    const error = (await readPolicyFlag(client, policyFlagKey).catch((caught: unknown) => caught)) as PolicyFlagError;
    expect(error).toBeInstanceOf(PolicyFlagError);
    expect(error.problem).toBe('default_value');
  });
});

describe('watchPolicyFlag', () => {
  it('applies the flag at start and swaps the policy a real SDK Client lists on ConfigurationChanged', async () => {
    const { client, provider, policyGate, mcp, errors, policies } = await setUp(hideBeta);
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onError: errors.push, onPolicy: policies.push });
    await watch.ready;
    expect(policyGate.policy.revision).toBe(compilePolicy(hideBeta).revision);
    expect(await toolNames(mcp.client)).toEqual(['stable']);

    provider.putConfiguration(policyFlag(allowEverything));
    let applied = await policies.next();
    while (applied.revision !== compilePolicy(allowEverything).revision) applied = await policies.next();
    expect(await toolNames(mcp.client)).toEqual(['stable', 'beta']);
    await flush();
    expect(mcp.notifications).toContain('notifications/tools/list_changed');
    expect(errors.values).toEqual([]);
    await watch.close();
    await mcp.close();
  });

  it('keeps the old policy on an invalid document and reports the flag key and the problem path', async () => {
    const { client, provider, policyGate, mcp, errors } = await setUp(hideBeta);
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onError: errors.push });
    await watch.ready;
    provider.putConfiguration(policyFlag({ version: 1, default: 'allow', rules: [{ id: 'open', effect: 'allow', when: { '===': [1] } }] }));
    const error = await errors.next();
    expect(error).toBeInstanceOf(PolicyFlagError);
    expect(error.flagKey).toBe(policyFlagKey);
    expect(error.problem).toBe('invalid_document');
    expect(error.issues.map((issue) => issue.path)).toEqual(['rules[0].when["==="]']);
    expect(policyGate.policy.revision).toBe(compilePolicy(hideBeta).revision);
    expect(await toolNames(mcp.client)).toEqual(['stable']);
    await watch.close();
    await mcp.close();
  });

  it('keeps the old policy when the flag goes missing or holds the wrong type', async () => {
    const { client, provider, policyGate, mcp, errors } = await setUp(hideBeta);
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onError: errors.push });
    await watch.ready;
    provider.putConfiguration({ 'another-flag': { variants: { on: true }, defaultVariant: 'on', disabled: false } });
    expect((await errors.next()).errorCode).toBe('FLAG_NOT_FOUND');
    provider.putConfiguration({ [policyFlagKey]: { variants: { on: 'deny everything' }, defaultVariant: 'on', disabled: false } });
    expect((await errors.next()).errorCode).toBe('TYPE_MISMATCH');
    expect(policyGate.policy.revision).toBe(compilePolicy(hideBeta).revision);
    expect(await toolNames(mcp.client)).toEqual(['stable']);
    await watch.close();
    await mcp.close();
  });

  it('reports a flag that is missing at start and leaves the gate on the policy it was created with', async () => {
    const { client, policyGate, mcp, errors } = await setUp(hideBeta);
    const watch = watchPolicyFlag(client, 'not-there', policyGate, { onError: errors.push });
    await watch.ready;
    expect(errors.values.map((error) => [error.flagKey, error.errorCode])).toEqual([['not-there', 'FLAG_NOT_FOUND']]);
    expect(policyGate.policy.revision).toBe(compilePolicy(allowEverything).revision);
    await watch.close();
    await mcp.close();
  });

  it('stops listening after close()', async () => {
    const { client, provider, policyGate, mcp, errors, policies } = await setUp(hideBeta);
    const handlersBefore = [ProviderEvents.ConfigurationChanged, ProviderEvents.Ready].map((event) => client.getHandlers(event).length);
    const watch = watchPolicyFlag(client, policyFlagKey, policyGate, { onError: errors.push, onPolicy: policies.push });
    await watch.ready;
    await watch.close();
    expect([ProviderEvents.ConfigurationChanged, ProviderEvents.Ready].map((event) => client.getHandlers(event).length)).toEqual(handlersBefore);
    const seen = policies.values.length;
    provider.putConfiguration(policyFlag(hideEverything));
    provider.putConfiguration(policyFlag({ version: 'two' }));
    await flush(20);
    expect(policies.values).toHaveLength(seen);
    expect(errors.values).toEqual([]);
    expect(policyGate.policy.revision).toBe(compilePolicy(hideBeta).revision);
    await mcp.close();
  });

  it('keeps watching after a callback throws', async () => {
    const { client, provider, policyGate, mcp, policies } = await setUp(hideBeta);
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...parts: unknown[]) => void logged.push(parts);
    try {
      const watch = watchPolicyFlag(client, policyFlagKey, policyGate, {
        onPolicy: (policy) => {
          policies.push(policy);
          if (policies.values.length === 1) throw new Error('callback failed');
        },
      });
      await watch.ready;
      provider.putConfiguration(policyFlag(allowEverything));
      let applied = await policies.next();
      while (applied.revision !== compilePolicy(allowEverything).revision) applied = await policies.next();
      expect(await toolNames(mcp.client)).toEqual(['stable', 'beta']);
      expect(String(logged[0])).toContain('callback failed');
      await watch.close();
    } finally {
      console.error = original;
    }
    await mcp.close();
  });

  it('logs with console.error when no onError is given', async () => {
    const { client, provider, policyGate, mcp } = await setUp(hideBeta);
    const logged = createRecorder<string>();
    const original = console.error;
    console.error = (message: string) => logged.push(message);
    try {
      const watch = watchPolicyFlag(client, policyFlagKey, policyGate);
      await watch.ready;
      provider.putConfiguration(policyFlag({ version: 1, default: 'sometimes', rules: [] }));
      expect(await logged.next()).toMatch(/^policy flag "mcp-policy" not applied \(1 issue\):\n {2}default: /);
      await watch.close();
    } finally {
      console.error = original;
    }
    await mcp.close();
  });
});

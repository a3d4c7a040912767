import { describe, expect, it } from 'vitest';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { PolicyCompileError, PolicyEvaluationError, type PolicyError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import type { PolicyDocument } from '../../src/core/policy/schema.js';
import type { EvaluationErrorHandler, Policy } from '../../src/core/policy/types.js';
import { createGate, gate } from '../../src/sdk/index.js';
import { connectAsCaller, type Caller } from '../../src/testing/index.js';
import { settle } from '../../src/testing/probe.js';

const caller: Caller = {
  client: { name: 'cursor', version: '1.0.0', capabilities: { sampling: {}, elicitation: {}, roots: {} } },
  headers: { 'x-canary': '1' },
  endpoint: '/mcp',
};
const names = (items: readonly { name: string }[]) => items.map((item) => item.name);

/** Fails one primitive's rule (insights) and lets everything else through as `allowEverything` would. */
const failingDocument: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'explode-on-insights', effect: 'deny', appliesTo: { names: ['insights'] }, when: { explode: [] } }],
};

async function serveDemo(policy: Policy) {
  const server = createDemoServer();
  gate(server, { policy, metadata: demoMetadata });
  return connectAsCaller(server, caller);
}

function recordErrors(): { handler: EvaluationErrorHandler; calls: { error: PolicyError | Error; ruleId: string | undefined; primitive: string }[] } {
  const calls: { error: PolicyError | Error; ruleId: string | undefined; primitive: string }[] = [];
  return { calls, handler: (error, where) => void calls.push({ error, ruleId: where.ruleId, primitive: where.primitive.name }) };
}

describe('gate (faults in the policy)', () => {
  it('hides the one primitive whose custom operator throws, reports it once per request, and leaves the others alone', async () => {
    const errors = recordErrors();
    const failing = compilePolicy(failingDocument, {
      operators: {
        explode: () => {
          throw new Error('boom');
        },
      },
      onError: errors.handler,
    });
    const healthy = compilePolicy({ ...failingDocument, rules: [] });
    const [broken, baseline] = [await serveDemo(failing), await serveDemo(healthy)];

    const listed = names((await broken.client.listTools()).tools);
    expect(listed).toEqual(names((await baseline.client.listTools()).tools).filter((name) => name !== 'insights'));
    expect(errors.calls).toEqual([{ error: expect.any(PolicyEvaluationError), ruleId: 'explode-on-insights', primitive: 'insights' }]);
    expect(errors.calls[0]!.error.message).toBe('evaluation failed: boom');

    errors.calls.length = 0;
    expect(await settle(broken.client.callTool({ name: 'insights', arguments: {} }))).toBe(
      await settle(baseline.client.callTool({ name: 'no-such-tool', arguments: {} })).then((answer) => answer.replace('no-such-tool', 'insights')),
    );
    expect(errors.calls).toHaveLength(1);

    errors.calls.length = 0;
    expect(await settle(broken.client.callTool({ name: 'deploy_preview', arguments: { branch: 'main' } }))).toBe(
      await settle(baseline.client.callTool({ name: 'deploy_preview', arguments: { branch: 'main' } })),
    );
    expect(errors.calls).toEqual([]);
    await broken.close();
    await baseline.close();
  });

  it('hides a primitive whose rule exceeds its iteration budget at run time (a rule that throws)', async () => {
    const errors = recordErrors();
    const expensive = compilePolicy(
      {
        version: 1,
        default: 'allow',
        rules: [{ id: 'scan-scopes', effect: 'deny', appliesTo: { names: ['insights'] }, when: { some: [{ var: 'auth.scopes' }, { '==': [{ var: '' }, 'x'] }] } }],
      },
      { maxIterations: 10, onError: errors.handler },
    );
    const server = createDemoServer();
    gate(server, { policy: expensive, metadata: demoMetadata });
    const connection = await connectAsCaller(server, { ...caller, auth: { clientId: 'app', scopes: Array.from({ length: 50 }, (_, index) => `s${index}`), claims: {} } });
    expect(names((await connection.client.listTools()).tools)).not.toContain('insights');
    expect(errors.calls).toEqual([{ error: expect.objectContaining({ code: 'limit_exceeded' }), ruleId: 'scan-scopes', primitive: 'insights' }]);
    await connection.close();
  });

  it('keeps serving when the onError handler itself throws', async () => {
    const failing = compilePolicy(failingDocument, {
      operators: {
        explode: () => {
          throw new Error('boom');
        },
      },
      onError: () => {
        throw new Error('handler down');
      },
    });
    const connection = await serveDemo(failing);
    expect(names((await connection.client.listTools()).tools)).not.toContain('insights');
    expect(names((await connection.client.listTools()).tools)).toContain('deploy_preview');
    await connection.close();
  });

  it('fails closed when a hand-written Policy breaks its promise and throws', async () => {
    const healthy = compilePolicy({ version: 1, default: 'allow' });
    const evaluate: Policy['evaluate'] = (context, primitive) =>
      primitive.name === 'insights'
        ? (() => {
            throw new Error('broken policy');
          })()
        : healthy.evaluate(context, primitive);
    const throwing: Policy = {
      ...healthy,
      evaluate,
      forContext: (context) => (primitive) => evaluate(context, primitive),
      explain: (context, primitive) => healthy.explain(context, primitive),
    };
    const connection = await serveDemo(throwing);
    const listed = names((await connection.client.listTools()).tools);
    expect(listed).not.toContain('insights');
    expect(listed).toContain('deploy_preview');
    await connection.close();
  });

  it.each([
    ['an invalid document', { version: 1, default: 'maybe' }, PolicyCompileError],
    ['null', null, Error],
    ['an array', [], Error],
  ])('keeps the old policy when a reload with %s fails', async (_label, next, errorClass) => {
    const handle = createGate({
      policy: { version: 1, default: 'allow', rules: [{ id: 'no-admin', effect: 'deny', appliesTo: { groups: ['admin'] } }] },
      metadata: demoMetadata,
    });
    const server = createDemoServer();
    handle.install(server);
    const connection = await connectAsCaller(server, caller);
    const before = names((await connection.client.listTools()).tools);
    const policyBefore = handle.policy;
    await expect(handle.setPolicy(next as PolicyDocument)).rejects.toBeInstanceOf(errorClass);
    expect(handle.policy).toBe(policyBefore);
    expect(names((await connection.client.listTools()).tools)).toEqual(before);
    expect(connection.listChanges).toEqual([]);
    await connection.close();
  });
});

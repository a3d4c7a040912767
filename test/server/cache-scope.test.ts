import { afterEach, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/index.js';
import { createGatedHandler } from './fixtures.js';
import { listen, postModern, type Endpoint } from './http.js';

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const publicHints = {
  cacheHints: {
    'tools/list': { cacheScope: 'public', ttlMs: 60_000 },
    'prompts/list': { cacheScope: 'public', ttlMs: 60_000 },
    'resources/read': { cacheScope: 'public', ttlMs: 60_000 },
  },
} as const;

/** Reads nothing about the caller: the same primitives are hidden from everyone. */
const callerBlindPolicy = compilePolicy({
  version: 1,
  default: 'allow',
  enforceRequirements: false,
  rules: [{ id: 'no-admin-surface', effect: 'deny', appliesTo: { groups: ['admin'] } }],
});

describe('gate (mcp-gate/server): cacheScope', () => {
  it('never marks a list public when the policy reads headers or capabilities', async () => {
    endpoint = await listen(createGatedHandler({}, {}, publicHints));
    for (const method of ['tools/list', 'prompts/list']) {
      const answer = await postModern(endpoint, method, {}, { capabilities: {} });
      expect(answer.body.result, method).toMatchObject({ cacheScope: 'private', ttlMs: 60_000 });
    }
  });

  it('never marks a read public when whether it is answered depends on the caller', async () => {
    endpoint = await listen(createGatedHandler({}, {}, publicHints));
    const answer = await postModern(endpoint, 'resources/read', { uri: 'docs://readme' }, { capabilities: {} });
    expect(answer.body.result).toMatchObject({ cacheScope: 'private' });
  });

  it('keeps the server’s public hint when the policy reads nothing caller-specific', async () => {
    endpoint = await listen(createGatedHandler({ policy: callerBlindPolicy }, {}, publicHints));
    const list = await postModern(endpoint, 'tools/list', {}, { capabilities: {} });
    expect(list.body.result).toMatchObject({ cacheScope: 'public', ttlMs: 60_000 });
    expect((list.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name)).not.toContain('admin-reset');
    const read = await postModern(endpoint, 'resources/read', { uri: 'docs://readme' }, { capabilities: {} });
    expect(read.body.result).toMatchObject({ cacheScope: 'public', ttlMs: 60_000 });
  });

  it('leaves the SDK default (private, ttl 0) when the server configured no hint', async () => {
    endpoint = await listen(createGatedHandler({ policy: callerBlindPolicy }));
    const answer = await postModern(endpoint, 'tools/list', {}, { capabilities: {} });
    expect(answer.body.result).toMatchObject({ cacheScope: 'private', ttlMs: 0 });
  });
});

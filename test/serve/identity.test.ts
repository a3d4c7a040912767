// `mcp-gate serve --jwks URL --issuer ISS --audience AUD`: the same verifier as the proxy's
// (src/serve/bearer-auth.ts, in the shared HTTP host), in front of the demo server, with a policy
// that decides on the token's scopes and subject.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audience, createTestIssuer, issuer, serveJwks, type JwksServer, type TestIssuer } from '../proxy/identity-fixtures.js';
import { connectClient, startServe, toolNames, type RunningServe } from './harness.js';

const policy = {
  version: 1,
  default: 'allow',
  rules: [
    { id: 'beta-scope', effect: 'deny', appliesTo: { groups: ['beta'] }, when: { '!': { in: ['beta', { var: 'auth.scopes' }] } } },
    { id: 'canary-for-alice', effect: 'deny', appliesTo: { groups: ['canary'] }, when: { '!=': [{ var: 'auth.subject' }, 'alice'] } },
  ],
};

describe('mcp-gate serve --jwks', () => {
  let directory: string;
  let tokens: TestIssuer;
  let jwksServer: JwksServer;
  let serve: RunningServe;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcp-gate-serve-identity-'));
    await writeFile(join(directory, 'policy.json'), JSON.stringify(policy));
    tokens = await createTestIssuer();
    jwksServer = await serveJwks(tokens.jwks);
    serve = await startServe(['--policy', join(directory, 'policy.json'), '--jwks', jwksServer.url.href, '--issuer', issuer, '--audience', audience]);
  }, 60_000);

  afterAll(async () => {
    await serve?.stop();
    await jwksServer?.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it('refuses a request without a valid token with 401 and a challenge', async () => {
    expect(serve.stderr()).toContain(`mcp-gate serve: verifying bearer tokens of ${issuer} for ${audience} (--jwks)`);
    const expired = await tokens.sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 60 });
    for (const authorization of [undefined, `Bearer ${expired}`]) {
      const response = await fetch(serve.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body: '{}',
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/resource_metadata="https:\/\/gate\.test\/\.well-known\/oauth-protected-resource\/mcp"$/);
    }
  });

  it("decides on each token's scopes and subject", async () => {
    const alice = await connectClient(serve.url, { headers: { authorization: `Bearer ${await tokens.sign({ sub: 'alice', scope: 'beta' })}` } });
    const bob = await connectClient(serve.url, { headers: { authorization: `Bearer ${await tokens.sign({ sub: 'bob', scp: ['read'] })}` } });
    try {
      const aliceTools = await toolNames(alice);
      const bobTools = await toolNames(bob);
      expect(aliceTools).toEqual(expect.arrayContaining(['insights', 'deploy_preview']));
      expect(bobTools).not.toContain('insights');
      expect(bobTools).not.toContain('deploy_preview');
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});

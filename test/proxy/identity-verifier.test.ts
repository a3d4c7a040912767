// createBearerVerifier on its own: which claim becomes which part of auth.* (through the same
// authOfToken the in-process adapters use), and what a key set nobody can reach answers.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { authOfToken } from '../../src/adapter/token-auth.js';
import { createBearerVerifier } from '../../src/serve/bearer-auth.js';
import type { IncomingMessage } from 'node:http';
import { bearerChallenge, protectedResourceOf, resourceMetadataUrl, TokenRejection } from '../../src/serve/bearer-challenge.js';
import { audience, createTestIssuer, issuer } from './identity-fixtures.js';

describe('createBearerVerifier', () => {
  it('maps sub, iss, scope or scp, client_id or azp and every claim to auth.*', async () => {
    const tokens = await createTestIssuer();
    const verifier = createBearerVerifier({ jwks: { kind: 'keys', keys: tokens.jwks }, issuer, audience });
    const authOf = async (claims: Record<string, unknown>) => authOfToken(await verifier.verify(`Bearer ${await tokens.sign(claims)}`));

    const alice = await authOf({ sub: 'alice', scope: 'read  write', client_id: 'cli-app', azp: 'ignored', tenant: 't1' });
    expect(alice).toMatchObject({ subject: 'alice', issuer, clientId: 'cli-app', scopes: ['read', 'write'] });
    expect(alice.claims).toMatchObject({ sub: 'alice', iss: issuer, aud: audience, tenant: 't1' });

    expect(await authOf({ sub: 'bob', scp: ['read', 7, 'admin'], azp: 'spa' })).toMatchObject({ subject: 'bob', clientId: 'spa', scopes: ['read', 'admin'] });
    expect(await authOf({ sub: 'carol', scp: 'a b' })).toMatchObject({ subject: 'carol', clientId: undefined, scopes: ['a', 'b'] });
    expect(await authOf({ sub: 42 })).toMatchObject({ subject: undefined, scopes: [] });
  });

  it('accepts the Bearer scheme in any case, and refuses a missing or malformed header without an error code', async () => {
    const tokens = await createTestIssuer();
    const verifier = createBearerVerifier({ jwks: { kind: 'keys', keys: tokens.jwks }, issuer, audience });
    const token = await tokens.sign({ sub: 'alice' });
    expect((await verifier.verify(`bearer ${token}`)).extra.sub).toBe('alice');
    const missing = await verifier.verify(undefined).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(TokenRejection);
    expect(missing).toMatchObject({ status: 401, errorCode: undefined });
    expect(bearerChallenge('http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp', missing as TokenRejection)).toBe(
      'Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"',
    );
    await expect(verifier.verify(`Bearer ${token} extra`)).rejects.toMatchObject({
      status: 401,
      errorCode: 'invalid_token',
      message: 'the Authorization header holds a malformed Bearer token',
    });
  });

  it('answers 503, not 401, when the JWKS URL does not answer with keys', async () => {
    const server = createServer((_request, response) => response.writeHead(500).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`);
      const verifier = createBearerVerifier({ jwks: { kind: 'url', url }, issuer, audience });
      await expect(verifier.ready()).rejects.toThrow('Expected 200 OK from the JSON Web Key Set HTTP response');
      const tokens = await createTestIssuer();
      const rejection = await verifier.verify(`Bearer ${await tokens.sign({ sub: 'alice' })}`).catch((error: unknown) => error);
      expect(rejection).toMatchObject({ status: 503, errorCode: undefined, message: 'the token could not be verified: the signing keys are unavailable' });
      expect((rejection as Error).cause).toBeInstanceOf(Error);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('protectedResourceOf', () => {
  const request = { headers: { host: '127.0.0.1:3000' } } as IncomingMessage;
  it('is the audience when it is an http(s) URL, else the URL the request reached; its metadata URL follows RFC 9728 §3.1', () => {
    expect(protectedResourceOf('https://gate.example.com/tenant/mcp', request, '/mcp').href).toBe('https://gate.example.com/tenant/mcp');
    expect(resourceMetadataUrl(protectedResourceOf('https://gate.example.com/tenant/mcp', request, '/mcp'))).toBe(
      'https://gate.example.com/.well-known/oauth-protected-resource/tenant/mcp',
    );
    expect(protectedResourceOf('api://mcp-gate', request, '/mcp').href).toBe('http://127.0.0.1:3000/mcp');
    expect(protectedResourceOf('mcp-gate', request, '/mcp').href).toBe('http://127.0.0.1:3000/mcp');
    expect(resourceMetadataUrl(new URL('https://gate.example.com'))).toBe('https://gate.example.com/.well-known/oauth-protected-resource');
  });
});

// Real tokens and real servers for the identity tests: an issuer whose keys are generated per run
// and served as a JWKS on 127.0.0.1, and an HTTP upstream that records every request it gets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { createRecordingUpstream } from '../wire/recording-upstream.mjs';

export const issuer = 'https://issuer.test';
export const audience = 'https://gate.test/mcp';

export interface TestIssuer {
  readonly jwks: { keys: JWK[] };
  /** A token signed with the issuer's key, for `issuer` and `audience`, valid ten minutes, with `claims` over those. */
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** The same, signed with a key the JWKS does not hold (under the issuer's key id unless `kid` is given). */
  signWithStrangerKey(claims: JWTPayload, options?: SignOptions): Promise<string>;
}

export interface SignOptions {
  readonly kid?: string;
  /** false: a token without "exp". */
  readonly expires?: false;
}

export async function createTestIssuer(): Promise<TestIssuer> {
  const own = await generateKeyPair('ES256', { extractable: true });
  const stranger = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(own.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  const signWith =
    (key: CryptoKey) =>
    async (claims: JWTPayload, options: SignOptions = {}) => {
      const jwt = new SignJWT({ iss: issuer, aud: audience, ...claims }).setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'key-1' }).setIssuedAt();
      if (options.expires !== false) jwt.setExpirationTime(claims.exp ?? '10m');
      return jwt.sign(key);
    };
  return { jwks: { keys: [publicJwk] }, sign: signWith(own.privateKey), signWithStrangerKey: signWith(stranger.privateKey) };
}

export interface JwksServer {
  readonly url: URL;
  /** How many times the key set was fetched. */
  readonly fetches: number;
  close(): Promise<void>;
}

/** Serves `jwks` at http://127.0.0.1:PORT/jwks.json, as an authorization server's jwks_uri. */
export async function serveJwks(jwks: { keys: JWK[] }): Promise<JwksServer> {
  let fetches = 0;
  const server = createServer((request, response) => {
    fetches++;
    if (request.url !== '/jwks.json') response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  const port = await listen(server);
  return {
    url: new URL(`http://127.0.0.1:${port}/jwks.json`),
    get fetches() {
      return fetches;
    },
    close: () => close(server),
  };
}

export interface RecordedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface RecordingHttpUpstream {
  readonly url: URL;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/** The recording upstream (test/wire/recording-upstream.mjs) over stateless Streamable HTTP, keeping every request's headers and body. */
export async function startRecordingHttpUpstream(): Promise<RecordingHttpUpstream> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', headers: request.headers, body });
      const mcp = createRecordingUpstream();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => void mcp.close());
      void mcp
        .connect(transport)
        .then(() => transport.handleRequest(request, response, body === '' ? undefined : (JSON.parse(body) as unknown)))
        .catch(() => response.headersSent || response.writeHead(500).end());
    });
  });
  const port = await listen(server);
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), requests, close: () => close(server) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

// Bearer tokens for `serve` and `proxy` (--jwks, --issuer, --audience): JWTs verified with jose
// against a JWKS file or URL and turned into the AuthInfo both SDKs hand a request, which
// adapter/token-auth.ts maps to `auth.*`. Loaded only when --jwks is given; what the HTTP host
// answers with a refusal is in bearer-challenge.ts.
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import { TokenRejection, type VerifiedBearer } from './bearer-challenge.js';

/** Where the keys are: a JWKS read from a file at startup, or a URL jose fetches (and refetches on rotation). */
export type JwksSource = { readonly kind: 'keys'; readonly keys: JSONWebKeySet } | { readonly kind: 'url'; readonly url: URL };

export interface BearerAuthOptions {
  readonly jwks: JwksSource;
  /** The `iss` every token must carry: the authorization server's issuer identifier. */
  readonly issuer: string;
  /** A value the token's `aud` must hold: this server's resource identifier. */
  readonly audience: string;
}

export interface BearerVerifier {
  readonly issuer: string;
  readonly audience: string;
  /** The caller of a request with this `Authorization` header; throws a TokenRejection otherwise. */
  verify(authorization: string | undefined): Promise<VerifiedBearer>;
  /** Fetches a JWKS URL once (jose gives up after 5 s), so that a URL that does not answer fails at startup, not at the first client. */
  ready(): Promise<void>;
}

export function createBearerVerifier(options: BearerAuthOptions): BearerVerifier {
  const { issuer, audience, jwks } = options;
  // A URL's set is jose's to cache and refetch: on a key id it has not seen (at most every 30 s) and after 10 minutes.
  const remote: RemoteJWKSet | undefined = jwks.kind === 'url' ? createRemoteJWKSet(jwks.url) : undefined;
  const keySet: JWTVerifyGetKey = remote ?? createLocalJWKSet((jwks as Extract<JwksSource, { kind: 'keys' }>).keys);
  return {
    issuer,
    audience,
    async verify(authorization) {
      const token = bearerTokenOf(authorization);
      let payload: JWTPayload;
      try {
        // jose never accepts alg "none" from jwtVerify, and picks the key by the token's kid and alg.
        ({ payload } = await jwtVerify(token, keySet, { issuer, audience, requiredClaims: ['exp'] }));
      } catch (error) {
        throw rejectionOf(error, issuer, audience);
      }
      return {
        token,
        clientId: stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp'),
        scopes: scopesOf(payload),
        expiresAt: payload.exp!,
        extra: payload,
      };
    },
    async ready() {
      await remote?.reload();
    },
  };
}

function bearerTokenOf(authorization: string | undefined): string {
  if (authorization === undefined || authorization === '') {
    throw new TokenRejection('no bearer token: send "Authorization: Bearer <token>"', 401, undefined);
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
  if (match === null) {
    const scheme = /^bearer(?: |$)/i.test(authorization) ? 'a malformed Bearer token' : 'another scheme than Bearer';
    throw new TokenRejection(`the Authorization header holds ${scheme}`, 401, 'invalid_token');
  }
  return match[1]!;
}

/** Names what failed in fixed words and the configured values only: nothing of the token is echoed. */
function rejectionOf(error: unknown, issuer: string, audience: string): TokenRejection {
  const reject = (message: string) => new TokenRejection(message, 401, 'invalid_token');
  if (error instanceof errors.JWTExpired) return reject('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return reject(`the token's issuer is not ${JSON.stringify(issuer)}`);
    if (error.claim === 'aud') return reject(`the token's audience does not include ${JSON.stringify(audience)}`);
    if (error.claim === 'exp') return reject('the token has no valid "exp" claim');
    if (error.claim === 'nbf') return reject('the token is not valid yet ("nbf")');
    // jose checks the claims it knows (iat, sub, typ…) and the one we require, never one the token names.
    return reject(`the token's "${error.claim}" claim is invalid`);
  }
  if (error instanceof errors.JOSEError) {
    switch (error.code) {
      case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
        return reject("the token's signature does not verify");
      case 'ERR_JWKS_NO_MATCHING_KEY':
      case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
        return reject('no single key of the JWKS matches the token');
      case 'ERR_JOSE_ALG_NOT_ALLOWED':
      case 'ERR_JOSE_NOT_SUPPORTED':
        return reject("the token's algorithm is not accepted");
      case 'ERR_JWS_INVALID':
      case 'ERR_JWT_INVALID':
        return reject('the token is not a well-formed signed JWT');
    }
  }
  // The JWKS URL did not answer, or not with a key set (jose throws TypeError for a failed fetch):
  // not the caller's fault, and the operator hears of it from the host's onError.
  return new TokenRejection('the token could not be verified: the signing keys are unavailable', 503, undefined, { cause: error });
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function scopesOf(payload: JWTPayload): string[] {
  const { scope, scp } = payload;
  if (typeof scope === 'string') return scope.split(' ').filter((item) => item !== '');
  if (Array.isArray(scp)) return scp.filter((item): item is string => typeof item === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((item) => item !== '');
  return [];
}

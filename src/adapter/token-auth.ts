import type { RequestContextInput } from '../core/context.js';

/**
 * What the gate reads of a verified token: the part of the AuthInfo that both SDKs
 * (`@modelcontextprotocol/sdk` 1.x and `@modelcontextprotocol/server` 2.x) hand a request, with
 * the same field names. Neither has a field for the token's subject or issuer: auth middlewares
 * put the token's claims in `extra`.
 */
export interface VerifiedToken {
  readonly clientId?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  readonly extra?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The `auth` part of a request's context, from the token the SDK verified (none: no auth).
 * `auth.subject` is the `sub` claim and `auth.issuer` the `iss` claim (the JWT's issuer, which a
 * verifying middleware, or later the proxy's JWT verification, puts in `extra`); every claim
 * stays readable as `auth.claims.*`. One mapping for both adapters, so a field taken from the
 * token is added here once.
 */
export function authOfToken(token: VerifiedToken | undefined): NonNullable<RequestContextInput['auth']> {
  const claims = token?.extra;
  return {
    clientId: token?.clientId,
    subject: stringClaim(claims, 'sub'),
    issuer: stringClaim(claims, 'iss'),
    scopes: token?.scopes ?? [],
    claims: claims ?? {},
  };
}

/** A claim that must be a string to mean anything (`sub`, `iss`); any other value reads as absent. */
function stringClaim(claims: Readonly<Record<string, unknown>> | undefined, name: string): string | undefined {
  const value = claims?.[name];
  return typeof value === 'string' ? value : undefined;
}

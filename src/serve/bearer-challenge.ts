// What the HTTP host needs of bearer authentication without loading jose (bearer-auth.ts, only
// with --jwks): the verified token's shape, the refusal, the 401 challenge of the MCP
// authorization spec (RFC 6750 §3 with RFC 9728's `resource_metadata`) and the metadata document.
import type { IncomingMessage } from 'node:http';

/**
 * A verified token as the SDKs' `AuthInfo` carries it: the claims in `extra` (so `sub` and `iss`
 * reach `auth.subject` and `auth.issuer`), `clientId` from `client_id` (RFC 9068) or `azp`, and
 * scopes from `scope` (a space-separated string) or `scp` (an array, as Entra ID and Okta write it).
 * `clientId` is absent when the token names no client.
 */
export interface VerifiedBearer {
  readonly token: string;
  readonly clientId: string | undefined;
  readonly scopes: string[];
  readonly expiresAt: number;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** Why a request's token was refused, in words safe to send back: they never quote the token. */
export class TokenRejection extends Error {
  override readonly name = 'TokenRejection';
  constructor(
    message: string,
    /** 401 for the caller's token; 503 when the keys could not be fetched (the operator's problem). */
    readonly status: 401 | 503,
    /** RFC 6750's error code; none when the request carried no bearer token at all (§3.1). */
    readonly errorCode: 'invalid_token' | undefined,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** RFC 9728's well-known prefix: a host with a verifier answers GET on it and every path below it. */
export const resourceMetadataPrefix = '/.well-known/oauth-protected-resource';

/**
 * The resource a host protects (RFC 9728's `resource`): the `--audience` when it is an http(s)
 * URL, since an authorization server puts the resource the client asked for into `aud` and that
 * URL is the one clients use (also behind a reverse proxy); otherwise the URL this request reached.
 */
export function protectedResourceOf(audience: string, request: IncomingMessage, basePath: string): URL {
  const audienceUrl = URL.canParse(audience) ? new URL(audience) : undefined;
  if (audienceUrl !== undefined && (audienceUrl.protocol === 'https:' || audienceUrl.protocol === 'http:')) return audienceUrl;
  return new URL(`http://${request.headers.host ?? '127.0.0.1'}${basePath}`);
}

/** Where a resource's metadata is (RFC 9728 §3.1: the well-known prefix between the host and the path). */
export function resourceMetadataUrl(resource: URL): string {
  return `${resource.origin}${resourceMetadataPrefix}${resource.pathname === '/' ? '' : resource.pathname}`;
}

/**
 * The `WWW-Authenticate` value of a 401: where to find the protected resource metadata, and for a
 * bad token RFC 6750's error code and description. Descriptions come from TokenRejection (our own
 * words, no quote or backslash but in the configured values, escaped here).
 */
export function bearerChallenge(resourceMetadataUrl: string, rejection: TokenRejection): string {
  const parameters = [`resource_metadata=${quoted(resourceMetadataUrl)}`];
  if (rejection.errorCode !== undefined) parameters.unshift(`error="${rejection.errorCode}"`, `error_description=${quoted(rejection.message)}`);
  return `Bearer ${parameters.join(', ')}`;
}

function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (char) => `\\${char}`).replace(/[^\x20-\x7e]/g, '?')}"`;
}

/** RFC 9728 metadata: the resource and the one authorization server that issues its tokens. */
export function protectedResourceMetadata(resource: URL, issuer: string): Record<string, unknown> {
  return { resource: resource.href, authorization_servers: [issuer], bearer_methods_supported: ['header'] };
}

/** Who a session belongs to: later requests of the session must carry a token of the same caller. */
export function callerOf(bearer: VerifiedBearer): string {
  return JSON.stringify([bearer.extra.iss, bearer.extra.sub ?? null, bearer.clientId ?? null]);
}

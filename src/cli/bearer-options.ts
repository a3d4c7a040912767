// --jwks, --issuer and --audience of `serve` and `proxy`: verified bearer tokens become `auth.*`
// (src/serve/bearer-auth.ts, which loads jose only when --jwks is given).
import type { BearerVerifier } from '../serve/bearer-auth.js';
import type { ParsedArgs } from './args.js';
import { displayPath, InputError, parseJson, readText, resolvePath, UsageError, type CliIo } from './io.js';

export const bearerOptionSpecs = {
  jwks: { type: 'string', value: 'FILE|URL', description: "verify each client's bearer token (a JWT) against these keys: a JWKS file, or an https: URL" },
  issuer: { type: 'string', value: 'ISS', description: 'with --jwks: the "iss" every token must carry' },
  audience: { type: 'string', value: 'AUD', description: 'with --jwks: a value the token\'s "aud" must hold (this server\'s resource URL)' },
} as const;

export interface BearerSettings {
  readonly jwks: { readonly kind: 'file'; readonly path: string } | { readonly kind: 'url'; readonly url: URL };
  readonly issuer: string;
  readonly audience: string;
}

const loopbackHostnames: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The three options together or none; a JWKS URL over plain http only on this machine. */
export function readBearerSettings(args: ParsedArgs, command: string, transport: { readonly stdio: boolean }): BearerSettings | undefined {
  const jwks = args.string('jwks');
  const issuer = args.string('issuer');
  const audience = args.string('audience');
  if (jwks === undefined && issuer === undefined && audience === undefined) return undefined;
  if (jwks === undefined || issuer === undefined || audience === undefined) {
    const missing = (['jwks', 'issuer', 'audience'] as const).filter((name) => args.string(name) === undefined).map((name) => `--${name}`);
    throw new UsageError(`${command}: --jwks, --issuer and --audience go together; missing ${missing.join(' and ')}`);
  }
  if (transport.stdio) throw new UsageError(`${command}: --jwks verifies the bearer tokens of HTTP requests; stdio carries none`);
  for (const [name, value] of [
    ['issuer', issuer],
    ['audience', audience],
  ] as const) {
    if (value.trim() === '' || /\p{Cc}/u.test(value)) throw new UsageError(`${command}: --${name} must be a non-empty value without control characters`);
  }
  if (!/^https?:\/\//i.test(jwks)) return { jwks: { kind: 'file', path: jwks }, issuer, audience };
  const url = URL.canParse(jwks) ? new URL(jwks) : undefined;
  if (url === undefined) throw new UsageError(`${command}: --jwks: "${jwks}" is not a URL`);
  if (url.protocol === 'http:' && !loopbackHostnames.has(url.hostname)) {
    throw new UsageError(`${command}: --jwks ${url.href}: keys fetched over plain http could be swapped on the way; use https: (http: only for 127.0.0.1 or localhost)`);
  }
  return { jwks: { kind: 'url', url }, issuer, audience };
}

/**
 * The verifier, ready: a JWKS file read and checked, a JWKS URL fetched once, so that a key set
 * nobody could verify a token with stops the command at startup.
 */
export async function loadBearerVerifier(io: CliIo, command: string, settings: BearerSettings): Promise<BearerVerifier> {
  const { createBearerVerifier } = await import('../serve/bearer-auth.js');
  if (settings.jwks.kind === 'url') {
    const verifier = createBearerVerifier({ ...settings, jwks: settings.jwks });
    try {
      await verifier.ready();
    } catch (error) {
      throw new InputError(`${command}: --jwks ${settings.jwks.url.href}: cannot fetch the key set: ${error instanceof Error ? error.message : String(error)}`);
    }
    return verifier;
  }
  const path = resolvePath(io, settings.jwks.path);
  const name = displayPath(io, path);
  const keys = parseJson(await readText(io, path), name);
  try {
    return createBearerVerifier({ ...settings, jwks: { kind: 'keys', keys: keys as never } });
  } catch (error) {
    // jose checks the set's shape (an object with a "keys" array of JWKs) when it is created.
    throw new InputError(`${name}: not a JSON Web Key Set (${error instanceof Error ? error.message : String(error)})`);
  }
}

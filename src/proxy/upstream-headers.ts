// The proxy's upstream HTTP headers: --upstream-header (credentials the proxy holds for its
// upstream) and --forward-header (headers of each client session passed on to its upstream
// session). Apart from the SDK: the CLI checks these before it loads anything.

/** A header a request to the upstream carries: the name lower-cased, the value as given. */
export interface HeaderSetting {
  readonly name: string;
  readonly value: string;
}

/**
 * Headers the upstream transport writes itself (the session, the protocol version, the body's
 * framing) or that describe one hop's connection: setting one would break the upstream session.
 * `Mcp-Method` and `Mcp-Name` the 2026-07-28 transport writes from each request's body: a
 * client's own `Mcp-Name` would name a hidden primitive the proxy sends upstream as a probe.
 */
const transportHeaders: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The client's own credentials. Passing them on is the token passthrough the MCP authorization
 * spec forbids (a token issued for the proxy must not be accepted by, or leaked to, another
 * server); the upstream's credentials are the proxy's, given with --upstream-header.
 */
const clientCredentialHeaders: ReadonlySet<string> = new Set(['authorization', 'cookie', 'proxy-authorization']);

// RFC 9110 §5.1 field names (tokens) and §5.5 field values (no CR, LF or NUL; no other controls but tab).
const fieldName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const fieldValue = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * `Name: value` of --upstream-header, or an error message. Messages name the header, never its
 * value, which is often a secret.
 */
export function parseUpstreamHeader(text: string): HeaderSetting | string {
  const colon = text.indexOf(':');
  if (colon === -1) return 'must be "Name: value" (no ":" found)';
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  const problem = checkName(name);
  if (problem !== undefined) return problem;
  if (value === '') return `${name}: the value is empty`;
  if (!fieldValue.test(value)) return `${name}: the value holds a line break or another control character`;
  return { name: name.toLowerCase(), value };
}

/** A --forward-header name (lower-cased), or an error message. */
export function parseForwardHeader(text: string): string | { readonly problem: string } {
  const name = text.trim();
  const problem = checkName(name);
  if (problem !== undefined) return { problem };
  if (clientCredentialHeaders.has(name.toLowerCase())) {
    return {
      problem: `${name}: the client's credentials are never passed to the upstream (token passthrough); give the upstream its own with --upstream-header`,
    };
  }
  return name.toLowerCase();
}

function checkName(name: string): string | undefined {
  if (name === '') return 'the header name is empty';
  if (!fieldName.test(name)) return `"${name}" is not a valid header name`;
  if (transportHeaders.has(name.toLowerCase())) return `${name}: the proxy's HTTP transport sets this header itself`;
  return undefined;
}

/**
 * The headers of an upstream session: the configured ones, then the named ones of the client
 * session's initialize request that it sent. A header sent several times is joined with ", "
 * (RFC 9110 §5.3), as Node does for most headers already.
 */
export function upstreamSessionHeaders(
  fixed: readonly HeaderSetting[],
  forwardNames: readonly string[],
  downstream: Readonly<Record<string, string | readonly string[] | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { name, value } of fixed) headers[name] = value;
  for (const name of forwardNames) {
    const value = downstream[name];
    if (value !== undefined) headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return headers;
}

// SEP-2243 header parameters for the era bridge. A 2026-07-28 server checks a `tools/call` against
// `Mcp-Param-*` headers: one per argument whose schema property carries `x-mcp-header`, and it
// refuses a call whose header is absent (-32020). A 2026-07-28 client writes them from the tool's
// listed schema; a 2025-era client knows nothing of them, so the bridge writes them from the
// upstream's own list item of the tool the call is sent to. A probe name (a hidden tool) is in no
// list and gets none, as an unknown name's call from a client without them.

/** The `Mcp-Param-*` headers (lower-cased names) of a call with `args` to a tool with `inputSchema`. */
export function mcpParamHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  // Only properties reached through `properties` chains may declare a header (SEP-2243).
  const visit = (schema: unknown, path: readonly string[]): void => {
    if (!isRecord(schema)) return;
    const header = schema['x-mcp-header'];
    if (path.length > 0 && typeof header === 'string' && header !== '') {
      const text = primitiveText(valueAt(args, path));
      if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeParamValue(text);
    }
    const properties = schema['properties'];
    if (isRecord(properties)) for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
  };
  visit(inputSchema, []);
  return headers;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) node = isRecord(node) ? node[key] : undefined;
  return node;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

const base64Prefix = '=?base64?';
const base64Suffix = '?=';

/** A value as a header carries it: as is when it is plain visible ASCII, else `=?base64?…?=` of its UTF-8 (SEP-2243). */
function encodeParamValue(text: string): string {
  const plain = text !== '' && text === text.trim() && /^[\t\x20-\x7e]*$/.test(text) && !(text.startsWith(base64Prefix) && text.endsWith(base64Suffix));
  return plain ? text : `${base64Prefix}${Buffer.from(text, 'utf8').toString('base64')}${base64Suffix}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

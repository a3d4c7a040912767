/**
 * The SEP-2243 `Mcp-Param-*` header/body agreement check of @modelcontextprotocol/server 2.4,
 * as `createMcpHandler` runs it before dispatch (`scanXMcpHeaderDeclarations` and
 * `validateMcpParamHeaders` in the SDK's `core-internal/src/shared/mcpParamHeaders.ts`).
 *
 * The SDK does not export either function, and it runs them at a moment the gate cannot yet
 * see the request's `_meta` envelope. For a tool whose visibility depends on that envelope the
 * gate runs this copy once the envelope is known. It must give the SDK's verdict and message to
 * the byte: test/server/param-headers.test.ts compares both against the ungated SDK.
 */

/** What the SDK answers a disagreement with: HTTP 400 and this JSON-RPC error. */
export interface ParamHeaderRejection {
  readonly code: -32020;
  readonly message: string;
  readonly data: { readonly mismatch: { readonly header: string; readonly body: string } };
}

interface HeaderDeclaration {
  readonly path: readonly string[];
  readonly headerName: string;
  readonly type: string;
}

const paramHeaderPrefix = 'Mcp-Param-';
const headerKeyword = 'x-mcp-header';
const rfc9110Token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const permittedTypes = new Set(['string', 'integer', 'boolean']);
/** Positions an `x-mcp-header` may not sit under; one found there invalidates the whole schema. */
const unreachableKeywords = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
const objectValuedKeywords = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const base64Sentinel = { prefix: '=?base64?', suffix: '?=' };
const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const canonicalDecimal = /^-?\d+(\.\d+)?$/;

/** The SDK's rejection for this tool call, or `undefined` when its headers agree with its arguments. */
export function checkParamHeaders(inputSchema: Record<string, unknown>, args: unknown, headers: Headers): ParamHeaderRejection | undefined {
  const declarations = scanDeclarations(inputSchema);
  return declarations.length === 0 ? undefined : validateParamHeaders(declarations, args, headers);
}

/**
 * The declarations the SDK checks: none when the schema is structurally invalid; a
 * `number`-typed declaration makes it invalid too, but the SDK still checks all of them then.
 */
function scanDeclarations(inputSchema: Record<string, unknown>): HeaderDeclaration[] {
  const declarations: HeaderDeclaration[] = [];
  const seenLower = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean): boolean => {
    if (node === null || typeof node !== 'object') return true;
    const schema = node as Record<string, unknown>;
    if (headerKeyword in schema) {
      if (!reachable || path.length === 0) return false;
      const raw = schema[headerKeyword];
      if (typeof raw !== 'string' || raw.length === 0 || !rfc9110Token.test(raw)) return false;
      const type = typeof schema['type'] === 'string' ? schema['type'] : undefined;
      if (type === undefined || !permittedTypes.has(type)) {
        if (type !== 'number') return false;
      }
      const lower = raw.toLowerCase();
      if (seenLower.has(lower)) return false;
      seenLower.add(lower);
      declarations.push({ path, headerName: raw, type: type as string });
    }
    const properties = schema['properties'];
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) if (!visit(child, [...path, key], reachable)) return false;
    }
    for (const keyword of unreachableKeywords) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : sub !== null && typeof sub === 'object' && objectValuedKeywords.has(keyword) ? Object.values(sub) : [sub];
      for (const branch of branches) if (!visit(branch, [...path, `<${keyword}>`], false)) return false;
    }
    return true;
  };
  return visit(inputSchema, [], true) ? declarations : [];
}

function validateParamHeaders(declarations: readonly HeaderDeclaration[], args: unknown, headers: Headers): ParamHeaderRejection | undefined {
  for (const declaration of declarations) {
    const headerKey = `${paramHeaderPrefix}${declaration.headerName}`;
    const headerValue = headers.get(headerKey);
    const bodyRaw = valueAtPath(args, declaration.path);
    if (bodyRaw === undefined || bodyRaw === null) continue;
    const bodyString = primitiveToString(bodyRaw);
    if (bodyString === undefined) continue;
    const at = pathName(declaration.path);
    if (headerValue === null) return mismatch(headerKey, `the body carries ${at}=${JSON.stringify(bodyRaw)} but the ${headerKey} header is absent`);
    const decoded = decodeHeaderValue(headerValue);
    if (decoded === undefined) return mismatch(headerKey, `the ${headerKey} header carries an invalid Base64 sentinel value`);
    const numeric = (declaration.type === 'integer' || declaration.type === 'number') && canonicalDecimal.test(decoded) && typeof bodyRaw === 'number';
    if (!(numeric ? Number(decoded) === bodyRaw : decoded === bodyString)) {
      return mismatch(headerKey, `the ${headerKey} header decodes to ${JSON.stringify(decoded)} but the body carries ${at}=${JSON.stringify(bodyRaw)}`);
    }
  }
  return undefined;
}

function mismatch(header: string, body: string): ParamHeaderRejection {
  return { code: -32020, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}

function primitiveToString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined;
    return String(value);
  }
  return undefined;
}

function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(base64Sentinel.prefix) && value.endsWith(base64Sentinel.suffix))) return value;
  const base64 = value.slice(base64Sentinel.prefix.length, value.length - base64Sentinel.suffix.length);
  if (!canonicalBase64.test(base64)) return undefined;
  try {
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (char) => char.codePointAt(0)!);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function valueAtPath(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function pathName(path: readonly string[]): string {
  return path.length === 0 ? '<root>' : path.join('.');
}

import { suggestName } from '../logic/suggest.js';

// The shape of what a policy's `var` paths read: the RequestContext and the PrimitiveMetadata of
// src/core/context.ts, field by field. test/core/policy/context-shape.test.ts ties this
// vocabulary to real contexts and metadata, so a field added there fails a test until it is
// added here too.

/** What is at one position of the context, as far as a path check needs to know. */
export type PathShape =
  | { readonly kind: 'record'; readonly fields: Readonly<Record<string, PathShape>> }
  /** A string: only `length` and character indexes lie below it. */
  | { readonly kind: 'text' }
  | { readonly kind: 'number' }
  | { readonly kind: 'list'; readonly item: PathShape }
  /** Header names (lower-cased by the context) → string values. */
  | { readonly kind: 'headers' }
  /** ClientCapabilities: names from the protocol's vocabulary, free-form below them. */
  | { readonly kind: 'capabilities' }
  /** Free-form data (token claims): anything may lie below. */
  | { readonly kind: 'free' };

const text: PathShape = { kind: 'text' };
const textList: PathShape = { kind: 'list', item: text };
const headers: PathShape = { kind: 'headers' };

const requestShape: PathShape = {
  kind: 'record',
  fields: { method: text, headers, endpoint: text, sessionId: text, protocolVersion: text },
};
const clientShape: PathShape = {
  kind: 'record',
  fields: { name: text, version: text, capabilities: { kind: 'capabilities' } },
};
const authShape: PathShape = {
  kind: 'record',
  fields: { clientId: text, subject: text, issuer: text, scopes: textList, claims: { kind: 'free' } },
};
const primitiveShape: PathShape = {
  kind: 'record',
  fields: {
    kind: text,
    name: text,
    uri: text,
    uriTemplate: text,
    version: text,
    groups: textList,
    tags: textList,
    requires: { kind: 'record', fields: { capabilities: textList, headers } },
    endpoints: textList,
  },
};

/** Each `var` root and what lies below it; `tool` is the alias of `primitive`; `flags` holds flag values by key (policy/flag-reads.ts). */
export const contextShape: Readonly<Record<string, PathShape>> = {
  request: requestShape,
  client: clientShape,
  auth: authShape,
  primitive: primitiveShape,
  tool: primitiveShape,
  flags: { kind: 'free' },
};

/**
 * The top-level names of the protocol's ClientCapabilities (MCP 2025-11-25 and 2026-07-28):
 * anything else a client declares is ignored by servers, so a policy testing it is most likely
 * misspelt. Extensions are named below `extensions` (`extensions.com.example/report-export`).
 */
export const clientCapabilityNames: readonly string[] = ['sampling', 'elicitation', 'roots', 'tasks', 'experimental', 'extensions'];

/** What is wrong with a path, or a likely mistake in it. */
export interface PathFinding {
  readonly severity: 'error' | 'warning';
  readonly code: 'unknown_field' | 'header_case' | 'unknown_capability' | 'undeclared_flag' | 'invalid_argument';
  readonly message: string;
}

/**
 * Checks a literal `var` path against the context's shape. Returns undefined for a sound path,
 * and also for what the compiler already reports (an unknown or empty root, a forbidden segment).
 */
export function checkContextPath(segments: readonly string[]): PathFinding | undefined {
  const [root, ...rest] = segments;
  if (root === undefined || !Object.hasOwn(contextShape, root)) return undefined;
  let shape = contextShape[root]!;
  let at = root;
  for (let index = 0; index < rest.length; index++) {
    const segment = rest[index]!;
    switch (shape.kind) {
      case 'free':
        return undefined;
      case 'capabilities':
        return checkCapabilityName(segment);
      case 'headers':
        if (segment !== segment.toLowerCase()) return headerCase(segment);
        shape = text;
        break;
      case 'record': {
        if (!Object.hasOwn(shape.fields, segment)) return unknownField(segment, at, Object.keys(shape.fields));
        shape = shape.fields[segment]!;
        break;
      }
      case 'list':
        if (segment === 'length') shape = { kind: 'number' };
        else if (isIndex(segment)) shape = shape.item;
        else return error(`${quote(at)} is a list: it has no field ${quote(segment)} (test membership with {"in": [${quote(segment)}, {"var": ${quote(at)}}]})`);
        break;
      case 'text':
        if (segment === 'length') shape = { kind: 'number' };
        else if (!isIndex(segment)) return error(`${quote(at)} is a string: it has no field ${quote(segment)}`);
        break;
      case 'number':
        return error(`${quote(at)} is a number: it has no field ${quote(segment)}`);
    }
    at = `${at}.${segment}`;
  }
  return undefined;
}

/**
 * Checks the first name of a capability path (`sampling`, `elicitation.url`,
 * `extensions.com.example/x`) against the protocol's vocabulary; a warning, since a client may
 * declare names the protocol does not (yet) know.
 */
export function checkCapabilityName(path: string): PathFinding | undefined {
  const [name = ''] = path.split('.');
  if (clientCapabilityNames.includes(name)) return undefined;
  const suggestion = suggestName(name, clientCapabilityNames);
  const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
  return {
    severity: 'warning',
    code: 'unknown_capability',
    message: `unknown client capability ${quote(name)}${hint}; MCP clients declare ${clientCapabilityNames.slice(0, -1).join(', ')} and extensions.*`,
  };
}

function unknownField(segment: string, at: string, known: readonly string[]): PathFinding {
  const suggestion = suggestName(segment, known);
  const hint = suggestion === undefined ? `; known fields: ${known.join(', ')}` : ` (did you mean "${suggestion}"?)`;
  return { severity: 'error', code: 'unknown_field', message: `unknown field ${quote(segment)} under ${quote(at)}${hint}` };
}

function headerCase(name: string): PathFinding {
  return {
    severity: 'warning',
    code: 'header_case',
    message: `header ${quote(name)} never matches: header names are lower-cased (did you mean ${quote(name.toLowerCase())}?)`,
  };
}

function error(message: string): PathFinding {
  return { severity: 'error', code: 'unknown_field', message };
}

function isIndex(segment: string): boolean {
  return /^(0|[1-9]\d{0,8})$/.test(segment);
}

/** A name as messages quote it: long hostile names are abbreviated, so one cannot fill an error. */
function quote(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 32)}…(${name.length} characters)` : name);
}

/**
 * A regular expression for the `var` paths checkContextPath accepts without an error (warnings
 * aside: JSON Schema has no warnings), for policies/policy.schema.json. Built from contextShape,
 * so the two cannot drift.
 */
export function contextPathPattern(): string {
  // A flag is read by its key: `flags` alone is no path.
  const roots = Object.keys(contextShape).map((root) => (root === 'flags' ? 'flags\\.[^.]+(?:\\..*)?' : `${root}${tailPattern(contextShape[root]!)}`));
  return `^(?:${roots.join('|')})$`;
}

const indexPattern = '(?:0|[1-9][0-9]{0,8})';
const textTail = `(?:\\.${indexPattern})*(?:\\.length)?`;

function tailPattern(shape: PathShape): string {
  switch (shape.kind) {
    case 'record': {
      const fields = Object.entries(shape.fields).map(([name, field]) => `${escapePattern(name)}${tailPattern(field)}`);
      return `(?:\\.(?:${fields.join('|')}))?`;
    }
    case 'text':
      return textTail;
    case 'number':
      return '';
    case 'list':
      return `(?:\\.length|\\.${indexPattern}${tailPattern(shape.item)})?`;
    case 'headers':
      return `(?:\\.[^.]*${textTail})?`;
    case 'capabilities':
    case 'free':
      return '(?:\\..*)?';
  }
}

function escapePattern(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { compilePathReader } from '../logic/path.js';
import type { Evaluator, FieldRead } from '../internal-types.js';
import type { PrimitiveMetadata, RequestContext } from '../context.js';

// The context's own fields are read by one `switch` with a named property load per case. V8
// shares inline caches between closures made at one site, so a generic reader used for every
// path goes megamorphic (it was the top entry of a policy's profile); the fields of a
// RequestContext and of PrimitiveMetadata have fixed shapes, so each case's load stays
// monomorphic. Flat tests (logic/flat-tests.ts) call the switch directly; reader closures wrap it.

/** The fields readContextField knows, in its switch's order; a header is `headerField` with its name as key. */
const contextFields = [
  'request',
  'request.method',
  'request.headers',
  'request.endpoint',
  'request.sessionId',
  'request.protocolVersion',
  'client',
  'client.name',
  'client.version',
  'client.capabilities',
  'auth',
  'auth.clientId',
  'auth.subject',
  'auth.scopes',
  'auth.claims',
  'primitive',
  'primitive.kind',
  'primitive.name',
  'primitive.uri',
  'primitive.uriTemplate',
  'primitive.version',
  'primitive.groups',
  'primitive.tags',
  'primitive.requires',
  'primitive.requires.capabilities',
  'primitive.requires.headers',
  'primitive.endpoints',
  // Fields added later go here, at the end, so no case is renumbered (test/core/policy/context-readers.test.ts checks each).
  'auth.issuer',
] as const;
/** A header (the key is its name): the case after the fields in readContextField, as a literal there. */
const headerField = 28;

/**
 * Field `field` of the context or the primitive (undefined when absent). The cases are number
 * literals, in contextFields' order, so V8 compiles the switch to a jump table. Contexts and metadata
 * are plain data built by createRequestContext and createPrimitiveMetadata; a hand-made object
 * that lacks a field fails that evaluation, which hides the primitive (fail closed).
 */
export function readContextField(field: number, key: string, data: unknown, metadata: unknown): unknown {
  const context = data as RequestContext;
  const primitive = metadata as PrimitiveMetadata;
  switch (field) {
    case 0: return context.request;
    case 1: return context.request.method;
    case 2: return context.request.headers;
    case 3: return context.request.endpoint;
    case 4: return context.request.sessionId;
    case 5: return context.request.protocolVersion;
    case 6: return context.client;
    case 7: return context.client.name;
    case 8: return context.client.version;
    case 9: return context.client.capabilities;
    case 10: return context.auth;
    case 11: return context.auth.clientId;
    case 12: return context.auth.subject;
    case 13: return context.auth.scopes;
    case 14: return context.auth.claims;
    case 15: return primitive;
    case 16: return primitive.kind;
    case 17: return primitive.name;
    case 18: return primitive.uri;
    case 19: return primitive.uriTemplate;
    case 20: return primitive.version;
    case 21: return primitive.groups;
    case 22: return primitive.tags;
    case 23: return primitive.requires;
    case 24: return primitive.requires.capabilities;
    case 25: return primitive.requires.headers;
    case 26: return primitive.endpoints;
    case 27: return context.auth.issuer;
    case 28: {
      const value = context.request.headers[key];
      return typeof value === 'string' ? value : undefined;
    }
    default: return undefined;
  }
}

const fieldIndex: ReadonlyMap<string, number> = new Map(contextFields.map((path, index) => [path, index]));

/** The switch's read of `root.rest…` (root canonical), when it is a field or a header; undefined otherwise. */
export function contextFieldOf(segments: readonly string[]): FieldRead | undefined {
  if (segments.length === 3 && segments[0] === 'request' && segments[1] === 'headers') {
    return { field: headerField, key: segments[2]!, read: readContextField };
  }
  const field = fieldIndex.get(segments.join('.'));
  return field === undefined ? undefined : { field, key: '', read: readContextField };
}

/**
 * A reader for `root.rest…` (root already canonical: `tool` is `primitive`). The longest known
 * field prefix is read through the switch; the remainder (a capability path, a claim) walks own
 * data. A path that is no field of the context (e.g. `request.nope`) reads nothing, like any
 * missing path.
 */
export function compileContextReader(segments: readonly string[]): Evaluator {
  const direct = contextFieldOf(segments);
  if (direct !== undefined) {
    const { field, key } = direct;
    return function readField(context, primitive) {
      return readContextField(field, key, context, primitive);
    };
  }
  for (let length = Math.min(segments.length - 1, 3); length > 0; length--) {
    const field = fieldIndex.get(segments.slice(0, length).join('.'));
    if (field === undefined) continue;
    const readRest = compilePathReader(segments.slice(length));
    return function readBelowField(context, primitive) {
      return readRest(readContextField(field, '', context, primitive));
    };
  }
  return () => undefined;
}

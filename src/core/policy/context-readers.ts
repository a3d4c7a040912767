import { createRequestContext, type RequestContext, type RequestContextInput } from '../context.js';
import { createPrimitiveMetadata, type PrimitiveAnnotation, type PrimitiveMetadata } from '../primitive-metadata.js';
import type { Evaluator, FieldRead } from '../internal-types.js';
import { compilePathReader } from '../logic/path.js';
import { contextShape, type PathShape } from './context-shape.js';
import { compileFlagReader, isFlagPath } from './flag-reads.js';

// The context's own fields are read by one `switch` with a named property load per case. V8
// shares inline caches between closures made at one site, so a generic reader used for every
// path goes megamorphic (it was the top entry of a policy's profile); the fields of a
// RequestContext and of PrimitiveMetadata have fixed shapes, so each case's load stays
// monomorphic. Flat tests (logic/flat-tests.ts) call the switch directly; reader closures wrap it.
//
// The switch is the one table of fields. Which path each case reads is found on first use, by
// running every case once on a sample context and primitive in which each field of
// context-shape.ts holds a value of its own: the value a case returns names its field. So a
// field is added with one line here, its case, with the next number (cases are never
// renumbered). test/core/policy/context-field-cases.test.ts checks that every case reads a field
// of the shape, and context-readers.test.ts that every field of the shape has its case.

/** A header (the key is its name): the one case the sample cannot name, as it needs a key. */
const headerField = 28;

/**
 * Field `field` of the context or the primitive (undefined when absent). The cases are number
 * literals, so V8 compiles the switch to a jump table. Contexts and metadata
 * are plain data built by createRequestContext and createPrimitiveMetadata; a hand-made object
 * that lacks a field fails that evaluation, which hides the primitive (fail closed).
 */
export function readContextField(field: number, key: string, data: unknown, metadata: unknown): unknown {
  const context = data as RequestContext;
  const primitive = metadata as PrimitiveMetadata;
  switch (field) {
    case 0:
      return context.request;
    case 1:
      return context.request.method;
    case 2:
      return context.request.headers;
    case 3:
      return context.request.endpoint;
    case 4:
      return context.request.sessionId;
    case 5:
      return context.request.protocolVersion;
    case 6:
      return context.client;
    case 7:
      return context.client.name;
    case 8:
      return context.client.version;
    case 9:
      return context.client.capabilities;
    case 10:
      return context.auth;
    case 11:
      return context.auth.clientId;
    case 12:
      return context.auth.subject;
    case 13:
      return context.auth.scopes;
    case 14:
      return context.auth.claims;
    case 15:
      return primitive;
    case 16:
      return primitive.kind;
    case 17:
      return primitive.name;
    case 18:
      return primitive.uri;
    case 19:
      return primitive.uriTemplate;
    case 20:
      return primitive.version;
    case 21:
      return primitive.groups;
    case 22:
      return primitive.tags;
    case 23:
      return primitive.requires;
    case 24:
      return primitive.requires.capabilities;
    case 25:
      return primitive.requires.headers;
    case 26:
      return primitive.endpoints;
    case 27:
      return context.auth.issuer;
    case 28: {
      // headerField
      const value = context.request.headers[key];
      return typeof value === 'string' ? value : undefined;
    }
    // A new field: `case 29: return context.….…;` (the sample finds its path).
    default:
      return undefined;
  }
}

/** Cases are looked for up to this number (they are dense, from 0). */
const lastCaseTried = 127;

/** The sample value of each field of a shape: its own path for text, one item or one entry below it otherwise. */
function sampleOf(shape: PathShape, path: string, serial: { next: number }): unknown {
  switch (shape.kind) {
    case 'record':
      return Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, sampleOf(field, `${path}.${name}`, serial)]));
    case 'text':
      return path;
    case 'number':
      return serial.next++;
    case 'list':
      return [path];
    case 'capabilities':
      return { sampling: {} };
    default: // headers, free-form data
      return { 'x-sample': path };
  }
}

/** Every field path of a shape with the value at it in `value` (records walked, the rest are fields). */
function fieldValues(shape: PathShape, path: string, value: unknown): Array<[unknown, string]> {
  const own: [unknown, string] = [value, path];
  if (shape.kind !== 'record') return [own];
  return [own, ...Object.entries(shape.fields).flatMap(([name, field]) => fieldValues(field, `${path}.${name}`, (value as Record<string, unknown>)[name]))];
}

/**
 * Each case of readContextField and the field it reads (undefined when it reads none of the
 * shape's), found on a sample built by createRequestContext and createPrimitiveMetadata, so the
 * switch's loads see the shapes real contexts have.
 */
function findFieldCases(): ReadonlyArray<{ readonly field: number; readonly path: string | undefined }> {
  const serial = { next: 1 };
  const input = Object.fromEntries(['request', 'client', 'auth'].map((root) => [root, sampleOf(contextShape[root]!, root, serial)]));
  const context = createRequestContext(input as RequestContextInput);
  const { kind: _kind, name, uri, uriTemplate, ...annotation } = sampleOf(contextShape.primitive!, 'primitive', serial) as Record<string, unknown>;
  const primitive = createPrimitiveMetadata('tool', name as string, annotation as PrimitiveAnnotation, { uri: uri as string, uriTemplate: uriTemplate as string });
  const pathOf = new Map<unknown, string>([
    ...['request', 'client', 'auth'].flatMap((root) => fieldValues(contextShape[root]!, root, context[root as keyof RequestContext])),
    ...fieldValues(contextShape.primitive!, 'primitive', primitive),
  ]);
  const cases: Array<{ field: number; path: string | undefined }> = [];
  for (let field = 0; field <= lastCaseTried; field++) {
    const value = readContextField(field, '', context, primitive);
    if (value !== undefined) cases.push({ field, path: pathOf.get(value) });
  }
  return cases;
}

let foundCases: ReturnType<typeof findFieldCases> | undefined;

/**
 * The cases of readContextField but the header's, each with the path it reads; found on first
 * use (when the first rule is compiled), not when this module loads, so that the sample
 * metadata carries every hidden slot real metadata does (policy/rule-plan.ts adds one when it
 * loads) and the switch's loads never see a shape real metadata lacks.
 */
export function fieldCases(): ReturnType<typeof findFieldCases> {
  foundCases ??= findFieldCases();
  return foundCases;
}

let fieldIndexMap: ReadonlyMap<string, number> | undefined;

/** Path → case of readContextField. */
function fieldIndex(): ReadonlyMap<string, number> {
  fieldIndexMap ??= new Map(fieldCases().flatMap(({ field, path }) => (path === undefined ? [] : [[path, field] as const])));
  return fieldIndexMap;
}

/** The switch's read of `root.rest…` (root canonical), when it is a field or a header; undefined otherwise. */
export function contextFieldOf(segments: readonly string[]): FieldRead | undefined {
  if (segments.length === 3 && segments[0] === 'request' && segments[1] === 'headers') {
    return { field: headerField, key: segments[2]!, read: readContextField };
  }
  const field = fieldIndex().get(segments.join('.'));
  return field === undefined ? undefined : { field, key: '', read: readContextField };
}

/**
 * A reader for `root.rest…` (root already canonical: `tool` is `primitive`). The longest known
 * field prefix is read through the switch; the remainder (a capability path, a claim) walks own
 * data. A path that is no field of the context (e.g. `request.nope`) reads nothing, like any
 * missing path.
 */
export function compileContextReader(segments: readonly string[]): Evaluator {
  // Flags are not a fixed-shape field: a key's value, read as it is (a cache key must see what the context holds).
  if (isFlagPath(segments)) return compileFlagReader(segments, undefined);
  const direct = contextFieldOf(segments);
  if (direct !== undefined) {
    const { field, key } = direct;
    return function readField(context, primitive) {
      return readContextField(field, key, context, primitive);
    };
  }
  for (let length = Math.min(segments.length - 1, 3); length > 0; length--) {
    const field = fieldIndex().get(segments.slice(0, length).join('.'));
    if (field === undefined) continue;
    const readRest = compilePathReader(segments.slice(length));
    return function readBelowField(context, primitive) {
      return readRest(readContextField(field, '', context, primitive));
    };
  }
  return () => undefined;
}

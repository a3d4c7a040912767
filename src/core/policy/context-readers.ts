import { compilePathReader } from '../logic/path.js';
import type { Evaluator } from '../logic/types.js';
import type { PrimitiveMetadata, RequestContext } from '../context.js';

// Readers for the context's own fields, each its own function literal with named property
// loads. V8 shares inline caches between closures made at one site, so a generic reader used
// for every path goes megamorphic (it was the top entry of a policy's profile); the fields of a
// RequestContext and of PrimitiveMetadata have fixed shapes, so named loads stay monomorphic.

type Context = RequestContext;
type Primitive = PrimitiveMetadata;

const fieldReaders: Readonly<Record<string, Evaluator>> = {
  request: (context) => (context as Context).request,
  'request.method': (context) => (context as Context).request.method,
  'request.headers': (context) => (context as Context).request.headers,
  'request.endpoint': (context) => (context as Context).request.endpoint,
  'request.sessionId': (context) => (context as Context).request.sessionId,
  'request.protocolVersion': (context) => (context as Context).request.protocolVersion,
  client: (context) => (context as Context).client,
  'client.name': (context) => (context as Context).client.name,
  'client.version': (context) => (context as Context).client.version,
  'client.capabilities': (context) => (context as Context).client.capabilities,
  auth: (context) => (context as Context).auth,
  'auth.clientId': (context) => (context as Context).auth.clientId,
  'auth.subject': (context) => (context as Context).auth.subject,
  'auth.scopes': (context) => (context as Context).auth.scopes,
  'auth.claims': (context) => (context as Context).auth.claims,
  primitive: (_context, primitive) => primitive,
  'primitive.kind': (_context, primitive) => (primitive as Primitive).kind,
  'primitive.name': (_context, primitive) => (primitive as Primitive).name,
  'primitive.uri': (_context, primitive) => (primitive as Primitive).uri,
  'primitive.uriTemplate': (_context, primitive) => (primitive as Primitive).uriTemplate,
  'primitive.version': (_context, primitive) => (primitive as Primitive).version,
  'primitive.groups': (_context, primitive) => (primitive as Primitive).groups,
  'primitive.tags': (_context, primitive) => (primitive as Primitive).tags,
  'primitive.requires': (_context, primitive) => (primitive as Primitive).requires,
  'primitive.requires.capabilities': (_context, primitive) => (primitive as Primitive).requires.capabilities,
  'primitive.requires.headers': (_context, primitive) => (primitive as Primitive).requires.headers,
  'primitive.endpoints': (_context, primitive) => (primitive as Primitive).endpoints,
};

/**
 * A reader for `root.rest…` (root already canonical: `tool` is `primitive`). The longest known
 * field prefix is read with named loads; the remainder (a header name, a capability path, a
 * claim) walks own data. Contexts and metadata are plain data built by createRequestContext and
 * createPrimitiveMetadata; a hand-made object that lacks a field fails that evaluation, which
 * hides the primitive (fail closed).
 */
export function compileContextReader(segments: readonly string[]): Evaluator {
  for (let length = Math.min(segments.length, 3); length > 0; length--) {
    const field = segments.slice(0, length).join('.');
    const readField = Object.hasOwn(fieldReaders, field) ? fieldReaders[field] : undefined;
    if (readField === undefined) continue;
    const rest = segments.slice(length);
    if (rest.length === 0) return readField;
    if (field === 'request.headers' && rest.length === 1) return compileHeaderReader(rest[0]!);
    const readRest = compilePathReader(rest);
    return function readBelowField(context, primitive) {
      return readRest(readField(context, primitive));
    };
  }
  // Not a field of the context (e.g. `request.nope`): reads nothing, like any missing path.
  return () => undefined;
}

function compileHeaderReader(name: string): Evaluator {
  return function readHeader(context) {
    const value = (context as Context).request.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
}

import type { RequestContext } from '../context.js';
import { readPath } from '../logic/path.js';
import { canonicalJson } from './revision.js';
import { readsEverything } from './context-scope.js';

type Projection = (context: RequestContext) => unknown;

/**
 * Compiles `reads` into a function whose result is equal for two contexts exactly when they
 * agree on every path read, so a cache keyed by it can never hand one caller another's answer.
 * No hashing: the key is the canonical JSON of the values themselves.
 */
export function compileContextKey(reads: readonly string[]): (context: RequestContext) => string {
  if (reads.includes(readsEverything)) {
    return function wholeContextKey(context) {
      return canonicalJson({ request: context.request, client: context.client, auth: context.auth });
    };
  }
  const projections = [...new Set(reads)]
    .filter((path) => !path.startsWith('primitive.') && path !== 'primitive')
    .sort()
    .map(compileProjection);
  if (projections.length === 0) return () => '';
  return function contextKey(context) {
    let key = '';
    for (let index = 0; index < projections.length; index++) {
      const value = projections[index]!(context);
      key += `${value === undefined ? 'u' : serialize(value)}\u0001`;
    }
    return key;
  };
}

// Capabilities are one frozen object per session (createRequestContext copies each once), so
// their canonical JSON is computed once per object, not once per request.
const serializedObjects = new WeakMap<object, string>();

function serialize(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonicalJson(value);
  const known = serializedObjects.get(value);
  if (known !== undefined) return known;
  const text = canonicalJson(value);
  if (Object.isFrozen(value)) serializedObjects.set(value, text);
  return text;
}

function compileProjection(path: string): Projection {
  // Header names may contain dots; everything after `request.headers.` is one name.
  const headerPrefix = 'request.headers.';
  if (path.startsWith(headerPrefix)) {
    const name = path.slice(headerPrefix.length);
    return (context) => (Object.hasOwn(context.request.headers, name) ? context.request.headers[name] : undefined);
  }
  const segments = path.split('.');
  return (context) => readPath(context, segments);
}

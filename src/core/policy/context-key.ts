import type { RequestContext } from '../context.js';
import { compileContextReader } from './context-readers.js';
import { readsEverything } from './context-scope.js';
import { readRequiredHeader } from './requirements.js';
import { serializeKeyValue, uncacheable } from './key-value.js';

type Projection = (context: RequestContext) => unknown;

/** What a key must cover: the paths rules read, and the headers requirements compare whole. */
export interface KeyReads {
  /**
   * Paths as the rules' readers read them (`var`, `missing`, `has`, `fractional`): split at
   * every dot, so `request.headers.x-team.length` is the length of header `x-team`. `*` (a
   * computed path) stands for the whole context.
   */
  readonly paths: readonly string[];
  /** Header names metadata requirements compare (a name may contain dots: it is one name). */
  readonly requiredHeaders: readonly string[];
}

/**
 * Compiles a function whose result is equal for two contexts only when every read the compiled
 * rules and requirements perform returns equal values: each projection is the very reader the
 * rule runs (compileContextReader, readRequiredHeader), not a re-interpretation of its path, so a
 * cache keyed by it can never hand one caller another's answer. Values that cannot be compared as
 * data (see key-value.ts) make the key unique: that context is not cached.
 */
export function compileContextKey(reads: KeyReads): (context: RequestContext) => string {
  const contextPaths = reads.paths.includes(readsEverything)
    ? // A computed path may read anything: key on the three roots whole.
      ['request', 'client', 'auth']
    : reads.paths.filter((path) => path !== 'primitive' && !path.startsWith('primitive.'));
  const projections: Projection[] = [
    ...[...new Set(contextPaths)].sort().map(compileRuleRead),
    ...[...new Set(reads.requiredHeaders)].sort().map(
      (name): Projection =>
        (context) =>
          readRequiredHeader(context, name),
    ),
  ];
  if (projections.length === 0) return () => '';
  return function contextKey(context) {
    let key = '';
    for (let index = 0; index < projections.length; index++) {
      const text = serializeKeyValue(projections[index]!(context));
      if (text === uncacheable) return `\u0002${++uniqueKeys}`;
      key += `${text}\u0001`;
    }
    return key;
  };
}

// Unique across every key function: a key names the context in cursors too, beside other catalogs' keys.
let uniqueKeys = 0;

function compileRuleRead(path: string): Projection {
  const read = compileContextReader(path.split('.'));
  return (context) => read(context, undefined);
}

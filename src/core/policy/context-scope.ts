import { forbiddenSegments, isWholeDataPath, readPath, splitPath } from '../logic/path.js';
import { compileContextReader, contextFieldOf } from './context-readers.js';
import { suggestName } from '../logic/suggest.js';
import type { DataScope, Evaluator } from '../internal-types.js';
import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { checkFlagPath, compileFlagReader, flagRoot, type FlagDefaults } from './flag-reads.js';

/** `var` roots of a policy rule; `tool` is an alias of `primitive` for readability in tool-only policies; `flags` are feature flags (flag-reads.ts). */
export const contextRoots = ['request', 'client', 'auth', 'primitive', 'tool', 'flags'] as const;
type ContextRoot = (typeof contextRoots)[number];

/** Marks "this rule may read anything" (a dynamic `var` path): projections then take the whole context. */
export const readsEverything = '*';

function pickRoot(root: ContextRoot): (context: RequestContext, primitive: PrimitiveMetadata) => unknown {
  switch (root) {
    case 'request':
      return (context) => context.request;
    case 'client':
      return (context) => context.client;
    case 'auth':
      return (context) => context.auth;
    default:
      return (_context, primitive) => primitive;
  }
}

/** The roots error messages list: the request's and the primitive's (a `flags` path is taught by its own messages). */
const listedRoots = contextRoots.filter((root) => root !== flagRoot).join(', ');

function isRoot(name: string): name is ContextRoot {
  return (contextRoots as readonly string[]).includes(name);
}

/**
 * The scope of policy rules: `var` paths start at one of the roots, resolved straight from the
 * context and the primitive (no merged object per call). Every static path is recorded in
 * `reads`, which decides what a cache key must contain. `flagDefaults`: what a flag reads when
 * the context carries no value for it (a policy's declared defaults).
 */
export function createContextScope(reads: Set<string>, flagDefaults: FlagDefaults = {}): DataScope {
  return {
    resolveStatic(segments) {
      const [root, ...rest] = segments;
      if (root === undefined || root === '') {
        return `var needs a path starting with ${listedRoots}`;
      }
      if (!isRoot(root)) {
        const suggestion = suggestName(root, contextRoots);
        return `unknown var root "${root}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; paths start with ${listedRoots}`;
      }
      if (root === flagRoot) {
        const problem = checkFlagPath(segments, undefined);
        if (problem !== undefined) return problem.message;
        reads.add(segments.join('.'));
        return compileFlagReader(segments, Object.hasOwn(flagDefaults, segments[1]!) ? flagDefaults[segments[1]!] : undefined);
      }
      const canonicalRoot = root === 'tool' ? 'primitive' : root;
      reads.add([canonicalRoot, ...rest].join('.'));
      return compileContextReader([canonicalRoot, ...rest]);
    },
    fieldOf(segments) {
      // Called after resolveStatic accepted the path (which recorded it in `reads`).
      const [root, ...rest] = segments;
      return root !== undefined && isRoot(root) && root !== flagRoot ? contextFieldOf([root === 'tool' ? 'primitive' : root, ...rest]) : undefined;
    },
    declareDynamicAccess() {
      reads.add(readsEverything);
    },
    resolveDynamic(context, primitive, path) {
      if (isWholeDataPath(path)) return undefined;
      const [root, ...rest] = splitPath(path);
      // Flag keys are known at compile time (var-paths.ts rejects computed paths that name them): a computed path never reads one.
      if (root === undefined || !isRoot(root) || root === flagRoot || rest.some((segment) => forbiddenSegments.has(segment))) return undefined;
      return readPath(pickRoot(root)(context as RequestContext, primitive as PrimitiveMetadata), rest);
    },
    get capabilities(): Evaluator {
      reads.add('client.capabilities');
      return function readCapabilities(context) {
        return (context as RequestContext).client.capabilities;
      };
    },
    // Rollouts bucket a caller per primitive: the same caller keeps its bucket across requests
    // and processes; the subject is preferred over the self-reported client name.
    get defaultBucketKey(): Evaluator {
      reads.add('primitive.name').add('auth.subject').add('client.name');
      return function bucketKey(context, primitive) {
        const { auth, client } = context as RequestContext;
        const caller = auth.subject ?? client.name;
        return caller === undefined ? null : `${(primitive as PrimitiveMetadata).name}${caller}`;
      };
    },
  };
}

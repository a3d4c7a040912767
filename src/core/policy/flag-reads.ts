import type { FlagValue, RequestContext } from '../context.js';
import { joinPath, type PolicyIssue } from '../errors.js';
import type { NormalizedPolicyDocument } from './schema.js';
import type { Evaluator } from '../internal-types.js';
import { compilePathReader } from '../logic/path.js';

// The `flags` var root: `{"var": "flags.new-search"}` reads the value of feature flag
// `new-search` resolved for this request (a gate resolves exactly the keys a policy reads, once
// per request, before deciding). So the keys are known when the policy compiles: a path under
// `flags` must be a literal, and every flag read must have a default declared in the document's
// `flags` (the value it holds when resolving fails: fail closed). Below the key, a path reads
// into a JSON flag's value (`flags.limits.max`).

/** The var root of flag values. */
export const flagRoot = 'flags';

/** Declared defaults by flag key (the document's `flags`, defaults only). */
export type FlagDefaults = Readonly<Record<string, FlagValue>>;

/**
 * A reader of `flags.<key>…`: the request's value of the flag, or `fallback` when the context
 * carries none (a context no gate resolved flags for, e.g. a hand-made one or `explain`).
 */
export function compileFlagReader(segments: readonly string[], fallback: FlagValue | undefined): Evaluator {
  const key = segments[1] ?? '';
  const flagValue = (context: unknown): unknown => {
    const flags = (context as RequestContext).flags;
    return flags !== undefined && Object.hasOwn(flags, key) ? flags[key] : fallback;
  };
  if (segments.length <= 2) {
    return function readFlag(context) {
      return flagValue(context);
    };
  }
  const readRest = compilePathReader(segments.slice(2));
  return function readInFlag(context) {
    return readRest(flagValue(context));
  };
}

/** Whether a var path (split at dots) starts at the flags root. */
export function isFlagPath(segments: readonly string[]): boolean {
  return segments[0] === flagRoot;
}

/** The flag keys among context paths (`flags.<key>…`), sorted and distinct. */
export function flagKeysOf(paths: Iterable<string>): readonly string[] {
  const keys = new Set<string>();
  for (const path of paths) {
    if (path.startsWith(`${flagRoot}.`)) keys.add(path.split('.')[1]!);
  }
  return Object.freeze([...keys].sort());
}

/** What is wrong with a literal path under `flags` (given the declared keys), or undefined. */
export function checkFlagPath(segments: readonly string[], declared: ReadonlySet<string> | undefined): Omit<PolicyIssue, 'path'> | undefined {
  const key = segments[1];
  if (key === undefined || key === '') {
    return { code: 'invalid_argument', message: `"${flagRoot}" needs a flag key: {"var": "${flagRoot}.<key>"}` };
  }
  if (declared !== undefined && !declared.has(key)) {
    return {
      code: 'undeclared_flag',
      message: `flag ${JSON.stringify(key)} has no declared default: add "flags": {${JSON.stringify(key)}: {"default": …}} to the policy`,
    };
  }
  return undefined;
}

/**
 * Whether a computed path could lead under `flags`: some literal string in it is `flags` or
 * starts with `flags.` (what `{"cat": ["flags.", {"var": "auth.subject"}]}` does). Flag keys
 * must be known when the policy compiles, so such a path is an error; a computed path from
 * data alone (`{"var": {"var": "auth.claims.path"}}`) never reads flags at run time.
 */
export function mentionsFlagRoot(node: unknown, maxDepth: number, scanned: Set<object> = new Set(), depth = 0): boolean {
  // Bounded like the path checker's walk, and each object is scanned once per condition (`scanned`
  // is shared by its checks: a path nested in one already scanned was covered by that scan).
  if (depth > maxDepth) return false;
  if (typeof node === 'string') return node === flagRoot || node.startsWith(`${flagRoot}.`);
  if (node === null || typeof node !== 'object' || scanned.has(node)) return false;
  scanned.add(node);
  const items = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
  // A literal `var` inside names a static read (checked on its own), not a piece of this path.
  if (!Array.isArray(node) && items.length === 1 && Object.hasOwn(node, 'var')) {
    const varArg = items[0];
    if (typeof varArg === 'string' || (Array.isArray(varArg) && typeof varArg[0] === 'string')) return false;
  }
  return items.some((item) => mentionsFlagRoot(item, maxDepth, scanned, depth + 1));
}

/** The issue of a computed path that may read flags (see mentionsFlagRoot). */
export const dynamicFlagPathMessage = `a computed path may lead under "${flagRoot}": flag keys must be literal, e.g. {"var": "${flagRoot}.new-search"}`;

/** The declared default of every flag of a document, by key. */
export function declaredFlagDefaults(document: Pick<NormalizedPolicyDocument, 'flags'>): FlagDefaults {
  return Object.fromEntries(Object.entries(document.flags ?? {}).map(([key, declaration]) => [key, declaration.default as FlagValue]));
}

/** Declared flags no rule reads: a likely leftover or a misspelt key (nothing resolves them). */
export function unusedFlags(flagDefaults: FlagDefaults, reads: ReadonlySet<string>): PolicyIssue[] {
  const read = new Set(flagKeysOf(reads));
  return Object.keys(flagDefaults)
    .filter((key) => !read.has(key))
    .map((key) =>
      Object.freeze({
        code: 'unused_flag' as const,
        path: joinPath('flags', key),
        message: `flag ${JSON.stringify(key)} is declared but no rule reads it`,
        severity: 'warning' as const,
      }),
    );
}

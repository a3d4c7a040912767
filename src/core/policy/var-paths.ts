import { joinPath, PolicyOptionError, type PolicyIssue } from '../errors.js';
import { forbiddenSegments, isWholeDataPath, splitPath } from '../logic/path.js';
import { defaultLimits, type CompileLimits, type OperatorDefinition } from '../logic/types.js';
import { checkCapabilityName, checkContextPath, type PathFinding } from './context-shape.js';
import { checkFlagPath, dynamicFlagPathMessage, isFlagPath, mentionsFlagRoot } from './flag-reads.js';

// The compiler checks a `var` path's root; this checks the rest against the context's shape
// (context-shape.ts), so `request.header.x-canary` or `auth.scope` — which read nothing and
// silently flip a rule — are caught when the policy loads. Policies only: plain compileLogic
// reads arbitrary data. Only literal paths are checked (a computed path is known at run time),
// and never inside the bodies of array operators, whose data is the current item.

/**
 * Checks the literal paths of rule conditions (`var`, `missing`, `missing_some`, `has`, `has_all`).
 * `declaredFlags`: the flag keys the document declares; a flag read outside them is an error
 * (undefined: not known, as for a document that failed validation).
 */
export function createPathChecker(operators: ReadonlyMap<string, OperatorDefinition>, limits: CompileLimits = {}, declaredFlags?: ReadonlySet<string>) {
  const maxDepth = positiveOr(limits.maxDepth, defaultLimits.maxDepth);
  const maxNodes = positiveOr(limits.maxNodes, defaultLimits.maxNodes);
  const maxStringLength = positiveOr(limits.maxStringLength, defaultLimits.maxStringLength);
  // A condition object shared by several rules is walked once; its findings are re-pathed per use.
  const checked = new Map<unknown, { path: string; issues: readonly PolicyIssue[] }>();

  return function checkConditionPaths(condition: unknown, path: string): PolicyIssue[] {
    const known = condition !== null && typeof condition === 'object' ? checked.get(condition) : undefined;
    if (known) return known.issues.map((issue) => ({ ...issue, path: path + issue.path.slice(known.path.length) }));
    const issues: PolicyIssue[] = [];
    let nodes = 0;
    const scannedForFlags = new Set<object>();

    function report(finding: PathFinding | undefined, at: string): void {
      if (finding === undefined) return;
      const { code, message, severity } = finding;
      issues.push(severity === 'warning' ? { code, path: at, message, severity } : { code, path: at, message });
    }

    /** Visits items in order, stopping once the node limit is passed (a 100,000-element array costs what 10,001 do). */
    function each(items: readonly unknown[], visit: (item: unknown, index: number) => void): void {
      for (let index = 0; index < items.length && nodes <= maxNodes; index++) visit(items[index], index);
    }

    function checkVarPath(value: unknown, at: string): void {
      nodes++;
      if (typeof value !== 'string' && typeof value !== 'number') return;
      // Over-long strings are the compiler's limit issue, not a path to check as well.
      if (isWholeDataPath(value) || String(value).length > maxStringLength) return;
      const segments = splitPath(value);
      // Forbidden segments and empty roots are the compiler's to report.
      if (segments.some((segment) => forbiddenSegments.has(segment))) return;
      if (isFlagPath(segments)) {
        // A path without a key is the compiler's to report.
        if (segments.length > 1) report(toFinding(checkFlagPath(segments, declaredFlags)), at);
        return;
      }
      report(checkContextPath(segments), at);
    }

    /** A computed path (or `missing` key) whose literals name the flags root: keys must be static. */
    function checkComputedPath(value: unknown, at: string): void {
      if (value !== null && typeof value === 'object' && mentionsFlagRoot(value, maxDepth, scannedForFlags)) {
        issues.push({ code: 'dynamic_flag_path', path: at, message: dynamicFlagPathMessage });
      }
    }

    function checkCapability(value: unknown, at: string): void {
      nodes++;
      if (typeof value === 'string' && value !== '') report(checkCapabilityName(value), at);
    }

    /** `missing`'s keys: a string, or a literal array of them (checked one by one). */
    function checkKeys(value: unknown, at: string, depth: number): void {
      if (Array.isArray(value)) {
        each(value, (key, index) => (typeof key === 'string' ? checkVarPath(key, joinPath(at, index)) : walk(key, joinPath(at, index), depth + 1)));
      } else if (typeof value === 'string') {
        checkVarPath(value, at);
      } else {
        checkComputedPath(value, at);
        walk(value, at, depth);
      }
    }

    function walk(node: unknown, at: string, depth: number): void {
      if (++nodes > maxNodes || depth > maxDepth) return;
      if (Array.isArray(node)) {
        each(node, (item, index) => walk(item, joinPath(at, index), depth + 1));
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const keys = Object.keys(node);
      // Objects with zero or several keys are literal data, never evaluated.
      if (keys.length !== 1) return;
      const name = keys[0]!;
      const raw = (node as Record<string, unknown>)[name];
      const args: readonly unknown[] = Array.isArray(raw) ? raw : [raw];
      const operationPath = joinPath(at, name);
      const argPath = (index: number) => (Array.isArray(raw) ? joinPath(operationPath, index) : operationPath);
      const itemArgs = operators.get(name)?.itemArgs ?? [];
      const walkArgs = () => each(args, (arg, index) => itemArgs.includes(index) || walk(arg, argPath(index), depth + 1));

      switch (name) {
        case 'var':
          checkVarPath(args[0], argPath(0));
          checkComputedPath(args[0], argPath(0));
          return walkArgs();
        case 'missing':
          return each(args, (arg, index) => checkKeys(arg, argPath(index), depth + 1));
        case 'missing_some':
          walk(args[0], argPath(0), depth + 1);
          return checkKeys(args[1], argPath(1), depth + 1);
        case 'has':
          // `{"has": [value, "path"]}` tests another value: its path is not a capability.
          if (args.length === 1) checkCapability(args[0], argPath(0));
          return walkArgs();
        case 'has_all': {
          const last = args[args.length - 1];
          if (!Array.isArray(last)) each(args, (arg, index) => checkCapability(arg, argPath(index)));
          else if (args.length === 1) each(last, (path, index) => checkCapability(path, joinPath(argPath(0), index)));
          return walkArgs();
        }
        default:
          return walkArgs();
      }
    }

    walk(condition, path, 0);
    if (condition !== null && typeof condition === 'object') checked.set(condition, { path, issues });
    return issues;
  };
}

function toFinding(issue: Omit<PolicyIssue, 'path'> | undefined): PathFinding | undefined {
  return issue === undefined ? undefined : { severity: 'error', code: issue.code as PathFinding['code'], message: issue.message };
}

function positiveOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback;
}

/** The path findings of a document's rules: errors, and warnings (which `strict` makes errors). */
export interface RulePathIssues {
  readonly errors: PolicyIssue[];
  readonly warnings: readonly PolicyIssue[];
}

/** Checks the `when` of every rule (at `rules[index].when`); `strict` turns warnings into errors. */
export function checkRulePaths(
  rules: ReadonlyArray<{ readonly when?: unknown; readonly index?: number }>,
  operators: ReadonlyMap<string, OperatorDefinition>,
  options: CompileLimits & { readonly strict?: boolean | undefined } = {},
  declaredFlags?: ReadonlySet<string>,
): RulePathIssues {
  const strict = options.strict;
  if (strict !== undefined && typeof strict !== 'boolean') {
    throw new PolicyOptionError(`option strict must be a boolean, got ${typeof strict === 'string' ? `"${strict}"` : String(strict)}`);
  }
  const checkConditionPaths = createPathChecker(operators, options, declaredFlags);
  const errors: PolicyIssue[] = [];
  const warnings: PolicyIssue[] = [];
  rules.forEach((rule, position) => {
    if (rule.when === undefined) return;
    for (const issue of checkConditionPaths(rule.when, `${joinPath('rules', rule.index ?? position)}.when`)) {
      if (issue.severity !== 'warning') errors.push(issue);
      else if (strict === true) errors.push({ ...issue, severity: 'error' });
      else warnings.push(issue);
    }
  });
  return { errors, warnings: Object.freeze(warnings.map((issue) => Object.freeze(issue))) };
}

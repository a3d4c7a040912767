import type { z } from 'zod';
import { joinPath, PolicyCompileError, type PolicyIssue } from '../errors.js';
import { compileRule } from '../logic/compile.js';
import { restoreBudget, startBudget } from '../logic/budget.js';
import { dataScope } from '../logic/data-scope.js';
import type { DataScope, Evaluator } from '../logic/types.js';
import { isTruthy } from '../logic/truthy.js';
import { splitPath } from '../logic/path.js';
import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { Decision } from '../policy/types.js';
import { invariantSchema } from '../policy/schema.js';

export { invariantSchema };

/**
 * A property of a policy over every context and every primitive: `never` holds when its
 * condition is false for all of them, `always` when it is true for all of them. The condition is
 * JSON-Logic over `request.*`, `client.*`, `auth.*` (the context), `primitive.*` (alias `tool.*`)
 * and the decision: `visible` (the policy allows the primitive) and `decision.reason` /
 * `decision.ruleId`.
 */
export type Invariant = z.infer<typeof invariantSchema>;

/** The roots an invariant's `var` paths start with. */
export const invariantRoots: readonly string[] = ['request', 'client', 'auth', 'primitive', 'tool', 'visible', 'decision'];
export const outputRoots: ReadonlySet<string> = new Set(['visible', 'decision']);

export interface CompiledInvariant {
  readonly id: string;
  readonly description: string | undefined;
  readonly mode: 'never' | 'always';
  readonly condition: unknown;
  /** Whether this context and primitive, so decided, break the invariant (an evaluation error breaks it too). */
  violates(context: RequestContext, primitive: PrimitiveMetadata, decision: Decision): boolean;
}

/** What an invariant's condition sees. */
export function invariantData(context: RequestContext, primitive: PrimitiveMetadata, decision: Decision): Record<string, unknown> {
  return {
    request: context.request,
    client: context.client,
    auth: context.auth,
    primitive,
    tool: primitive,
    visible: decision.allowed,
    decision: { allowed: decision.allowed, reason: decision.reason, ruleId: decision.ruleId ?? null },
  };
}

/** Compiles invariants (`base` prefixes issue paths, e.g. `invariants`); throws PolicyCompileError listing every issue. */
export function compileInvariants(invariants: readonly Invariant[], source = 'invariants', base = 'invariants'): CompiledInvariant[] {
  const issues: PolicyIssue[] = [];
  const seen = new Map<string, number>();
  const compiled = invariants.map((invariant, index) => {
    const path = joinPath(base, index);
    const earlier = seen.get(invariant.id);
    if (earlier !== undefined)
      issues.push({ code: 'duplicate_rule_id', path: `${path}.id`, message: `invariant id "${invariant.id}" is already used by ${base}[${earlier}]` });
    else seen.set(invariant.id, index);
    const mode = invariant.never !== undefined ? 'never' : 'always';
    const condition = invariant.never ?? invariant.always;
    issues.push(...checkRoots(condition, `${path}.${mode}`));
    let evaluate: Evaluator = () => false;
    let steps = 0;
    try {
      const { root, limits } = compileRule(condition, { scope: invariantScope });
      evaluate = root.evaluate;
      steps = limits.maxIterations;
    } catch (error) {
      if (!(error instanceof PolicyCompileError)) throw error;
      issues.push(...error.issues.map((issue) => ({ ...issue, path: issue.path === '' ? `${path}.${mode}` : `${path}.${mode}.${issue.path}` })));
    }
    return {
      id: invariant.id,
      description: invariant.description,
      mode,
      condition,
      violates(context: RequestContext, primitive: PrimitiveMetadata, decision: Decision): boolean {
        const saved = startBudget(steps);
        try {
          const holds = isTruthy(evaluate(invariantData(context, primitive, decision), undefined));
          return mode === 'never' ? holds : !holds;
        } catch {
          return true;
        } finally {
          restoreBudget(saved);
        }
      },
    } satisfies CompiledInvariant;
  });
  if (issues.length > 0) throw new PolicyCompileError(issues, source);
  return compiled;
}

/** Plain data, except that `has` reads the client's capabilities, as in policies. */
const invariantScope: DataScope = {
  ...dataScope,
  capabilities(data) {
    return (data as { client?: { capabilities?: unknown } } | null)?.client?.capabilities;
  },
};

/** Literal `var` paths must start at a known root (a typo would read nothing and prove anything). */
function checkRoots(node: unknown, at: string): PolicyIssue[] {
  const issues: PolicyIssue[] = [];
  function walk(value: unknown, path: string): void {
    if (Array.isArray(value)) return value.forEach((item, index) => walk(item, joinPath(path, index)));
    if (value === null || typeof value !== 'object') return;
    const keys = Object.keys(value);
    if (keys.length !== 1) return;
    const name = keys[0]!;
    const raw = (value as Record<string, unknown>)[name];
    if (name === 'var') {
      const first = Array.isArray(raw) ? raw[0] : raw;
      if (typeof first === 'string' && first !== '') {
        const root = splitPath(first)[0]!;
        if (!invariantRoots.includes(root)) {
          issues.push({ code: 'unknown_field', path: joinPath(path, 'var'), message: `unknown var root "${root}"; invariant paths start with ${invariantRoots.join(', ')}` });
        }
      }
    }
    // Bodies of array operators read items; they are not checked.
    if (['map', 'filter', 'reduce', 'all', 'none', 'some'].includes(name)) return;
    walk(raw, joinPath(path, name));
  }
  walk(node, at);
  return issues;
}

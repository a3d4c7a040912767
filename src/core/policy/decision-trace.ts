import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { joinPath } from '../errors.js';
import { restoreBudget, startBudget } from '../logic/budget.js';
import { compileRule, toPolicyError } from '../logic/compile.js';
import { builtinOperators } from '../logic/operators.js';
import { isTruthy } from '../logic/truthy.js';
import { defaultLimits, type Evaluator } from '../logic/types.js';
import { compilePolicy, type CompilePolicyOptions } from './compile-policy.js';
import { createContextScope } from './context-scope.js';
import { toPrimitiveMetadata } from './primitive-input.js';
import { compileAppliesTo } from './rule-plan.js';
import { policyDocumentSchema, type PolicyRule } from './schema.js';
import type { Decision, Policy } from './types.js';

// `explain` says which rule decided; a trace also says why: every clause of every rule that
// applies to the primitive, with its value for this request, as Unleash's constraint view and the
// Rego playground show it. Clauses are compiled one by one from the document, in the same scope
// as the policy's own rules, so each value is what that part of the rule computes. The decision
// itself always comes from the compiled policy's `explain`, never from the trace.

/** One clause of a rule's `when`: its value, and the clauses it is made of. */
export interface ClauseTrace {
  /** Dot path in the document, as compile issues name it: `rules[1].when["!"].or[0]`. */
  readonly path: string;
  /** The operator (`and`, `!==`, `var`), or null for a literal. */
  readonly operator: string | null;
  /** The clause as the document writes it. */
  readonly logic: unknown;
  /** What the clause evaluated to (undefined when skipped or failed). */
  readonly value: unknown;
  /** JSON-Logic truthiness of `value`. */
  readonly truthy: boolean;
  /** Not evaluated by the policy: `and`/`or` stopped earlier, or an `if` took another branch. */
  readonly skipped: boolean;
  /** Why evaluating it failed (the policy fails closed on such a rule). */
  readonly error?: string | undefined;
  /** Argument clauses that are operations; literals and item bodies of array operators are left out. */
  readonly children: readonly ClauseTrace[];
}

/** One rule as the decision saw it. */
export interface RuleTrace {
  readonly id: string;
  readonly index: number;
  readonly effect: 'allow' | 'deny';
  /** Whether `appliesTo` matches the primitive. */
  readonly applies: boolean;
  /** Whether the decision evaluated this rule (deny rules come first, then allow rules, each in document order). */
  readonly reached: boolean;
  /** Applies and its `when` holds (or it has none). */
  readonly matched: boolean;
  /** This rule made the decision. */
  readonly decided: boolean;
  /** The condition's trace; null when the rule has no `when` (always). */
  readonly when: ClauseTrace | null;
}

export interface DecisionTrace {
  readonly decision: Decision;
  readonly rules: readonly RuleTrace[];
}

export interface DecisionTracer {
  readonly policy: Policy;
  trace(context: RequestContext, primitive: PrimitiveMetadata): DecisionTrace;
}

interface CompiledClause {
  readonly path: string;
  readonly operator: string | null;
  readonly logic: unknown;
  readonly evaluate: Evaluator;
  /** How the operator evaluates its arguments, for marking skipped ones. */
  readonly order: 'all' | 'and' | 'or' | 'if';
  readonly children: readonly CompiledClause[];
}

/**
 * Compiles a policy document (throws PolicyCompileError as compilePolicy does) and returns a
 * tracer: the compiled policy and, per request and primitive, its decision with every rule's trace.
 */
export function createDecisionTracer(document: unknown, options: CompilePolicyOptions = {}): DecisionTracer {
  const policy = compilePolicy(document, options);
  const rules = policyDocumentSchema.parse(document).rules;
  const steps = options.maxIterations ?? defaultLimits.maxIterations;
  const compiledRules = rules.map((rule, index) => ({
    rule,
    index,
    appliesTo: compileAppliesTo(rule.appliesTo),
    when: rule.when === undefined ? null : compileClause(rule.when, joinPath(joinPath('rules', index), 'when'), options),
  }));

  return {
    policy,
    trace(context, given) {
      const primitive = toPrimitiveMetadata(given);
      const decision = policy.explain(context, primitive);
      // Deny rules are evaluated before allow rules; the first that matches decides.
      const evaluationOrder = [...compiledRules.filter(({ rule }) => rule.effect === 'deny'), ...compiledRules.filter(({ rule }) => rule.effect === 'allow')];
      const decidingRule = decision.reason === 'rule' || decision.reason === 'error' ? decision.ruleId : undefined;
      const reachedIndexes = new Set<number>();
      if (decision.reason !== 'requirement') {
        for (const { rule, index, appliesTo } of evaluationOrder) {
          if (!appliesTo(primitive)) continue;
          reachedIndexes.add(index);
          if (rule.id === decidingRule) break;
        }
      }
      const saved = startBudget(steps);
      try {
        const traces = compiledRules.map(({ rule, index, appliesTo, when }): RuleTrace => {
          const applies = appliesTo(primitive);
          const whenTrace = when === null ? null : traceClause(when, context, primitive, false, steps);
          return Object.freeze({
            id: rule.id,
            index,
            effect: rule.effect as PolicyRule['effect'],
            applies,
            reached: reachedIndexes.has(index),
            matched: applies && (whenTrace === null || (whenTrace.error === undefined && whenTrace.truthy)),
            decided: rule.id === decidingRule && reachedIndexes.has(index),
            when: whenTrace,
          });
        });
        return Object.freeze({ decision, rules: Object.freeze(traces) });
      } finally {
        restoreBudget(saved);
      }
    },
  };
}

function compileClause(logic: unknown, path: string, options: CompilePolicyOptions): CompiledClause {
  const { root } = compileRule(logic, { ...options, scope: createContextScope(new Set()), path });
  const constant = root.constant;
  const evaluate: Evaluator = root.isConstant ? () => constant : root.evaluate;
  const operation = asOperation(logic);
  if (operation === undefined) return { path, operator: null, logic, evaluate, order: 'all', children: [] };
  const { operator, args, argsIsArray } = operation;
  const itemArgs = builtinOperators.get(operator)?.itemArgs ?? [];
  const operationPath = joinPath(path, operator);
  const children: CompiledClause[] = [];
  args.forEach((arg, index) => {
    // Item bodies read array items (`var: ""`), which mean nothing outside the array operator.
    if (itemArgs.includes(index) || asOperation(arg) === undefined) return;
    children.push(compileClause(arg, argsIsArray ? joinPath(operationPath, index) : operationPath, options));
  });
  const order = operator === 'and' || operator === 'or' ? operator : operator === 'if' || operator === '?:' ? 'if' : 'all';
  // Short-circuit marking needs every argument to be a child; a literal among them breaks the pairing.
  const allChildren = children.length === args.length;
  return { path, operator, logic, evaluate, order: allChildren ? order : 'all', children };
}

function asOperation(logic: unknown): { operator: string; args: readonly unknown[]; argsIsArray: boolean } | undefined {
  if (logic === null || typeof logic !== 'object' || Array.isArray(logic)) return undefined;
  const keys = Object.keys(logic);
  if (keys.length !== 1) return undefined;
  const operator = keys[0]!;
  const raw = (logic as Record<string, unknown>)[operator];
  return { operator, args: Array.isArray(raw) ? raw : [raw], argsIsArray: Array.isArray(raw) };
}

function traceClause(clause: CompiledClause, context: RequestContext, primitive: PrimitiveMetadata, skipped: boolean, steps: number): ClauseTrace {
  let value: unknown;
  let error: string | undefined;
  if (!skipped) {
    // Each clause gets the budget a whole rule gets: a trace never fails where the rule did not.
    const saved = startBudget(steps);
    try {
      value = clause.evaluate(context, primitive);
    } catch (thrown) {
      error = toPolicyError(thrown).message;
    } finally {
      restoreBudget(saved);
    }
  }
  const childSkipped = skippedChildren(clause, context, primitive, skipped, steps);
  const children = clause.children.map((child, index) => traceClause(child, context, primitive, childSkipped[index]!, steps));
  return Object.freeze({
    path: clause.path,
    operator: clause.operator,
    logic: clause.logic,
    value,
    truthy: !skipped && error === undefined && isTruthy(value),
    skipped,
    error,
    children: Object.freeze(children),
  });
}

/** Which arguments the operator never evaluated for this request. */
function skippedChildren(clause: CompiledClause, context: RequestContext, primitive: PrimitiveMetadata, skipped: boolean, steps: number): boolean[] {
  const { children, order } = clause;
  if (skipped) return children.map(() => true);
  if (order === 'all') return children.map(() => false);
  const holds = (child: CompiledClause) => {
    const saved = startBudget(steps);
    try {
      return isTruthy(child.evaluate(context, primitive));
    } catch {
      return false;
    } finally {
      restoreBudget(saved);
    }
  };
  const result: boolean[] = [];
  let done = false;
  if (order === 'and' || order === 'or') {
    for (const child of children) {
      result.push(done);
      if (!done && holds(child) === (order === 'or')) done = true;
    }
    return result;
  }
  // if: [condition, then, condition, then, …, else]
  for (let index = 0; index < children.length; index++) {
    const isLast = index === children.length - 1;
    const isCondition = index % 2 === 0 && !isLast;
    if (done) result.push(true);
    else if (isCondition) {
      result.push(false);
      const taken = holds(children[index]!);
      result.push(!taken);
      index++;
      if (taken) done = true;
    } else result.push(false);
  }
  return result;
}

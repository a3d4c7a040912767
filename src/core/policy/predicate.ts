import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { compileRule, toPolicyError, type CompileLogicOptions } from '../logic/compile.js';
import { restoreBudget, startBudget } from '../logic/budget.js';
import { isTruthy } from '../logic/truthy.js';
import type { EvaluationErrorHandler } from './types.js';
import { createContextScope } from './context-scope.js';

/** Options of compilePredicate: compileLogic's, plus a handler told about failed evaluations. */
export interface CompilePredicateOptions extends CompileLogicOptions {
  /** Told about every evaluation that failed (and so returned false). Must not throw; if it does, that is ignored. */
  onError?: EvaluationErrorHandler;
}

/** A compiled predicate; never throws. `reads` lists the context paths it depends on. */
export interface Predicate {
  (context: RequestContext, primitive: PrimitiveMetadata): boolean;
  readonly reads: readonly string[];
}

/**
 * Compiles a JSON-Logic rule over `request.*`, `client.*`, `auth.*` and `primitive.*` (alias
 * `tool.*`) into a predicate. Non-boolean results count by JSON-Logic truthiness; an error
 * counts as false (fail closed) and goes to `onError`.
 */
export function compilePredicate(rule: unknown, options: CompilePredicateOptions = {}): Predicate {
  const reads = new Set<string>();
  const { root, limits, iterates } = compileRule(rule, { ...options, scope: createContextScope(reads) });
  const evaluate = root.evaluate;
  const neverArray = root.neverArray;
  const steps = limits.maxIterations;
  const onError = options.onError;
  function test(context: RequestContext, primitive: PrimitiveMetadata): boolean {
    try {
      const value = evaluate(context, primitive);
      return neverArray ? !!value : isTruthy(value);
    } catch (error) {
      reportError(onError, error, undefined, primitive);
      return false;
    }
  }
  // Only predicates that iterate over arrays need an iteration budget around each call.
  const predicate = iterates
    ? function evaluatePredicate(context: RequestContext, primitive: PrimitiveMetadata): boolean {
        const saved = startBudget(steps);
        try {
          return test(context, primitive);
        } finally {
          restoreBudget(saved);
        }
      }
    : test;
  return Object.assign(predicate, { reads: Object.freeze([...reads].sort()) });
}

/** Hands an evaluation failure to the user's handler; a throwing handler cannot break fail-closed evaluation. */
export function reportError(onError: EvaluationErrorHandler | undefined, error: unknown, ruleId: string | undefined, primitive: PrimitiveMetadata): void {
  if (!onError) return;
  try {
    onError(toPolicyError(error), { ruleId, primitive });
  } catch {
    // The handler is the user's; its failure must not turn a hidden primitive into a crash.
  }
}

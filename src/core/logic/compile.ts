import { joinPath, PolicyCompileError, PolicyError, PolicyEvaluationError, PolicyOptionError, type PolicyIssue } from '../errors.js';
import { restoreBudget, startBudget, withBudget } from './budget.js';
import { dataScope } from './data-scope.js';
import { createOperatorTable, type CustomOperators } from './operators.js';
import { suggestName } from './suggest.js';
import { defaultLimits, type CompileContext, type CompiledArg, type CompileLimits, type DataScope, type Evaluator, type OperatorDefinition } from './types.js';

/** Options of compileLogic: the size limits a rule must stay within, and any custom operators. */
export interface CompileLogicOptions extends CompileLimits {
  /** Extra operators, `name → (...evaluatedArgs) => value`; names are snake_case and may not shadow built-ins. */
  operators?: CustomOperators;
}

/** A compiled JSON-Logic rule over plain data. Throws only PolicyError subclasses. */
export type CompiledLogic = (data?: unknown) => unknown;

const unsupported: Record<string, string> = {
  log: 'operator "log" is not supported: rules have no side effects',
  method: 'operator "method" is not supported: rules cannot call methods on data',
};

/**
 * Compiles a JSON-Logic rule once into nested closures (no eval). Every problem in the rule is
 * collected into one PolicyCompileError.
 */
export function compileLogic(rule: unknown, options: CompileLogicOptions = {}): CompiledLogic {
  const { root, limits } = compileRule(rule, { scope: dataScope, ...options });
  if (root.isConstant) {
    const constant = root.constant;
    return function evaluateConstantRule() {
      return constant;
    };
  }
  const evaluate = root.evaluate;
  const steps = limits.maxIterations;
  return function evaluateRule(data) {
    const saved = startBudget(steps);
    try {
      return evaluate(data, undefined);
    } catch (error) {
      throw toPolicyError(error);
    } finally {
      restoreBudget(saved);
    }
  };
}

export interface CompileRuleOptions extends CompileLogicOptions {
  scope: DataScope;
  /** An operator table validated once by the caller (a policy compiles many rules with one table). */
  operatorTable?: ReadonlyMap<string, OperatorDefinition>;
  /** Dot path of the rule inside its document, prefixed to every issue path. */
  path?: string;
}

/** Compiles a rule in a given scope; throws PolicyCompileError with every issue found. */
export function compileRule(rule: unknown, options: CompileRuleOptions): CompiledRule {
  const issues: PolicyIssue[] = [];
  let compiled: CompiledRule;
  try {
    compiled = compileRuleCollectingIssues(rule, options, issues);
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    // A rule built in code can throw from a getter or a proxy: still one error type.
    const message = `could not read the rule: ${error instanceof Error ? error.message : String(error)}`;
    throw new PolicyCompileError([...issues, { code: 'invalid_argument', path: options.path ?? '', message }], 'rule');
  }
  if (issues.length > 0) throw new PolicyCompileError(issues, 'rule');
  return compiled;
}

/** A compiled rule: its root, the limits in force, and whether it may spend the iteration budget. */
export interface CompiledRule {
  readonly root: CompiledArg;
  readonly limits: Readonly<Required<CompileLimits>>;
  readonly iterates: boolean;
}

/** Like compileRule, but appends issues to `issues` (policy compilation gathers all rules' issues). */
export function compileRuleCollectingIssues(rule: unknown, options: CompileRuleOptions, issues: PolicyIssue[]): CompiledRule {
  const limits = resolveLimits(options);
  const operators = options.operatorTable ?? createOperatorTable(options.operators, issues);
  const firstIssue = issues.length;
  let nodes = 0;
  let nodeLimitReported = false;
  let iterates = false;

  const report = (issue: PolicyIssue) => void issues.push(issue);

  function constantArg(value: unknown, raw: unknown, path: string): CompiledArg {
    return { evaluate: () => value, isConstant: true, constant: value, raw, path, neverArray: !Array.isArray(value) };
  }

  function countNode(path: string): boolean {
    nodes++;
    if (nodes <= limits.maxNodes) return true;
    if (!nodeLimitReported) {
      nodeLimitReported = true;
      report({ code: 'limit_exceeded', path, message: `rule has more than ${limits.maxNodes} nodes` });
    }
    return false;
  }

  function walk(rule: unknown, path: string, depth: number, scope: DataScope): CompiledArg {
    if (!countNode(path)) return constantArg(null, rule, path);
    if (depth > limits.maxDepth) {
      report({ code: 'limit_exceeded', path, message: `rule is nested deeper than ${limits.maxDepth} levels` });
      return constantArg(null, rule, path);
    }
    if (Array.isArray(rule)) return walkArray(rule, path, depth, scope);
    if (rule !== null && typeof rule === 'object') {
      const keys = Object.keys(rule);
      if (keys.length === 1) return walkOperation(rule as Record<string, unknown>, keys[0]!, path, depth, scope);
      return constantArg(copyLiteral(rule, path, depth), rule, path);
    }
    return constantArg(checkScalar(rule, path), rule, path);
  }

  function walkArray(items: readonly unknown[], path: string, depth: number, scope: DataScope): CompiledArg {
    const elements: CompiledArg[] = [];
    for (let index = 0; index < items.length && !nodeLimitReported; index++) {
      elements.push(walk(items[index], joinPath(path, index), depth + 1, scope));
    }
    if (elements.every((element) => element.isConstant)) {
      return constantArg(Object.freeze(elements.map((element) => element.constant)), items, path);
    }
    const evaluators = elements.map((element) => element.evaluate);
    const evaluate: Evaluator = function evaluateArray(data, primitive) {
      return evaluators.map((element) => element(data, primitive));
    };
    return { evaluate, isConstant: false, constant: undefined, raw: items, path, neverArray: false };
  }

  function walkOperation(rule: Record<string, unknown>, name: string, path: string, depth: number, scope: DataScope): CompiledArg {
    const operationPath = joinPath(path, name);
    const rawArgs = rule[name];
    const argList: readonly unknown[] = Array.isArray(rawArgs) ? rawArgs : [rawArgs];
    const definition = operators.get(name);
    const issuesBefore = issues.length;
    if (!definition) reportUnknown(name, path);
    else checkArity(definition, argList.length, operationPath);
    const args: CompiledArg[] = [];
    for (let index = 0; index < argList.length && !nodeLimitReported; index++) {
      const argScope = definition?.itemArgs?.includes(index) ? dataScope : scope;
      const argPath = Array.isArray(rawArgs) ? joinPath(operationPath, index) : operationPath;
      args.push(walk(argList[index], argPath, depth + 1, argScope));
    }
    if (!definition || issues.length > issuesBefore) return constantArg(null, rule, path);
    const ctx: CompileContext = { scope, options: limits, report };
    const evaluate = definition.compile(args, ctx, operationPath);
    if (definition.iterates) iterates = true;
    const valid = issues.length === issuesBefore;
    if (!valid || !definition.pure || !args.every((arg) => arg.isConstant)) {
      const { neverArray } = definition;
      const scalar = typeof neverArray === 'function' ? neverArray(args) : neverArray === true;
      if (!valid) return { evaluate, isConstant: false, constant: undefined, raw: rule, path, neverArray: scalar };
      const negation = definition.compileNegation?.(args);
      const field = definition.fieldRead?.(args, scope);
      const test = definition.flatTest?.(args);
      const group = definition.testGroup?.(args);
      return { evaluate, isConstant: false, constant: undefined, raw: rule, path, neverArray: scalar, negation, field, test, group };
    }
    return fold(evaluate, rule, operationPath);
  }

  /** Evaluates an operation whose arguments are all literals once, at compile time. */
  function fold(evaluate: Evaluator, rule: unknown, path: string): CompiledArg {
    try {
      const value = withBudget(limits.maxIterations, () => evaluate(undefined, undefined));
      return constantArg(Array.isArray(value) ? Object.freeze(value) : value, rule, path);
    } catch (error) {
      report({ code: 'limit_exceeded', path, message: toPolicyError(error).message });
      return constantArg(null, rule, path);
    }
  }

  function reportUnknown(name: string, path: string): void {
    const at = joinPath(path, name);
    const reason = Object.hasOwn(unsupported, name) ? unsupported[name] : undefined;
    if (reason) return report({ code: 'unknown_operator', path: at, message: reason });
    const suggestion = suggestName(name, operators.keys());
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    report({ code: 'unknown_operator', path: at, message: `unknown operator "${truncate(name)}"${hint}` });
  }

  function checkArity(definition: OperatorDefinition, count: number, path: string): void {
    const { min, max } = definition.arity;
    if (count >= min && count <= max) return;
    const expected = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    const plural = min === max && min === 1 ? 'argument' : 'arguments';
    report({ code: 'arity', path, message: `"${definition.name}" takes ${expected} ${plural}, got ${count}` });
  }

  function checkScalar(value: unknown, path: string): unknown {
    if (typeof value === 'string' && value.length > limits.maxStringLength) {
      report({ code: 'limit_exceeded', path, message: `string longer than ${limits.maxStringLength} characters` });
    } else if (typeof value === 'number' && !Number.isFinite(value)) {
      report({ code: 'invalid_argument', path, message: `number ${value} is not finite` });
    } else if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      report({ code: 'invalid_argument', path, message: `${typeof value} is not JSON` });
    }
    return value;
  }

  /** Object literals (zero or several keys) pass through as data: copied, frozen and bounded like rules. */
  function copyLiteral(value: unknown, path: string, depth: number): unknown {
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      for (let index = 0; index < value.length && !nodeLimitReported; index++) {
        const at = joinPath(path, index);
        if (countNode(at)) copy.push(copyNested(value[index], at, depth + 1));
      }
      return Object.freeze(copy);
    }
    if (value === null || typeof value !== 'object') return checkScalar(value, path);
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      report({ code: 'invalid_argument', path, message: 'object is not plain JSON data' });
      return null;
    }
    const copy: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value)) {
      const at = joinPath(path, key);
      if (nodeLimitReported || !countNode(at)) break;
      copy[key] = copyNested((value as Record<string, unknown>)[key], at, depth + 1);
    }
    return Object.freeze(copy);
  }

  function copyNested(value: unknown, path: string, depth: number): unknown {
    if (depth > limits.maxDepth) {
      report({ code: 'limit_exceeded', path, message: `rule is nested deeper than ${limits.maxDepth} levels` });
      return null;
    }
    return copyLiteral(value, path, depth);
  }

  const root = walk(rule, options.path ?? '', 0, options.scope);
  if (issues.length > firstIssue) return { root: constantArg(null, rule, options.path ?? ''), limits, iterates };
  return { root, limits, iterates };
}

function resolveLimits(options: CompileLimits): Readonly<Required<CompileLimits>> {
  const limits = { ...defaultLimits };
  for (const key of Object.keys(defaultLimits) as (keyof CompileLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new PolicyOptionError(`option ${key} must be a positive integer, got ${String(value)}`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}

function truncate(text: string): string {
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

/** Anything thrown while evaluating becomes a PolicyError (the compiled rule's only failure mode). */
export function toPolicyError(error: unknown): PolicyError {
  if (error instanceof PolicyError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new PolicyEvaluationError(`evaluation failed: ${reason}`, 'evaluation_failed', error);
}

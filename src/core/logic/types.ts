import type { PolicyIssue } from '../errors.js';
import type { CompiledArg, DataScope, Evaluator, FieldRead, FlatTest, TestGroup } from '../internal-types.js';

// What an operator is written against: OperatorDefinition, the CompileContext it compiles in,
// and the limits. The compiled forms its signature speaks in are internal (src/index.ts does not
// export them) and live in ../internal-types.ts; they are re-exported here so an operator file
// imports its whole vocabulary from one module.
export type { CompiledArg, DataScope, Evaluator } from '../internal-types.js';

export interface CompileContext {
  readonly scope: DataScope;
  readonly options: Readonly<Required<CompileLimits>>;
  report(issue: PolicyIssue): void;
}

export interface OperatorDefinition {
  readonly name: string;
  readonly arity: { readonly min: number; readonly max: number };
  /** When true, the compiler folds the call if every argument is constant. */
  readonly pure: boolean;
  /**
   * Compile the (already compiled) args into an evaluator. Report bad literal
   * arguments through `ctx.report`; return any evaluator (it will not run) when reporting.
   */
  compile(args: readonly CompiledArg[], ctx: CompileContext, path: string): Evaluator;
  /** Indexes of arguments that are evaluated per array item (map/filter/…): compiled against plain item data. */
  readonly itemArgs?: readonly number[];
  /** Whether the result can never be an array (booleans, strings, numbers, null); lets callers skip the array check of truthiness. */
  readonly neverArray?: boolean | ((args: readonly CompiledArg[]) => boolean);
  /** True when evaluating may spend the iteration budget (array operators), so callers must set one up. */
  readonly iterates?: boolean;
  // The four hooks below are fast paths: each gives the compiler a second form of what
  // `compile` already returns (the closures stay the reference semantics), and each form has a
  // test comparing it with the closures: compileNegation in test/core/logic/negation.test.ts,
  // flatTest, testGroup and fieldRead in test/core/logic/flat-tests.test.ts. They stay separate
  // hooks because each serves a different consumer (`!`, `and`/`or`, a group's operands, `var`).
  /**
   * `{"!": <this operation>}` as one evaluator, which must return `!isTruthy(value)` of the
   * operation for every input; undefined when the operation has no such form. Policies negate
   * tests all the time (`!starts_with`, `!in`, `!sem_ver`), and one call instead of two matters
   * where a rule is a tree of calls V8 cannot inline. Only called for rules without issues.
   */
  compileNegation?(args: readonly CompiledArg[]): Evaluator | undefined;
  /** This operation as a flat test (flat-tests.ts), when it has one; only called for rules without issues. */
  flatTest?(args: readonly CompiledArg[]): FlatTest | undefined;
  /** For `and`/`or`: the group of tests they run as, if any. */
  testGroup?(args: readonly CompiledArg[]): TestGroup | undefined;
  /** For `var`: the scope's field read of this path, if any. */
  fieldRead?(args: readonly CompiledArg[], scope: DataScope): FieldRead | undefined;
}

/**
 * Size limits that keep a hostile rule from exhausting memory or CPU; a rule over a limit fails to
 * compile. Defaults: depth 64, 10,000 nodes, strings of 65,536 characters, 100,000 iterations.
 */
export interface CompileLimits {
  /** Deepest nesting of operators and arrays in a rule. */
  maxDepth?: number;
  /** Most nodes (operators, literals, array elements) in a rule. */
  maxNodes?: number;
  /** Longest string literal in a rule, and longest string `cat`/`substr` may produce at run time. */
  maxStringLength?: number;
  /** Most elements `merge`/`map`/`filter` may produce, and most iterations one evaluation may run. */
  maxIterations?: number;
}

export const defaultLimits: Readonly<Required<CompileLimits>> = Object.freeze({
  maxDepth: 64,
  maxNodes: 10_000,
  maxStringLength: 65_536,
  maxIterations: 100_000,
});

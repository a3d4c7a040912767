import type { PolicyIssue } from '../errors.js';
import type { FlatTest, TestGroup } from './flat-tests.js';

/**
 * A compiled rule node. `data` is the document a rule reads; in predicate mode it is the
 * RequestContext and `primitive` is the PrimitiveMetadata, so nothing is merged per call.
 */
export type Evaluator = (data: unknown, primitive: unknown) => unknown;

/** A child argument after compilation: its evaluator, and its value when it is a literal (constant folding). */
export interface CompiledArg {
  readonly evaluate: Evaluator;
  readonly isConstant: boolean;
  readonly constant: unknown;
  /** The raw rule of this argument, for operators that inspect it (e.g. `fractional`'s bucket-key detection). */
  readonly raw: unknown;
  readonly path: string;
  /** True when the value is never an array, so JSON-Logic truthiness is plain `!!value` (no array check). */
  readonly neverArray: boolean;
  /** `{"!": <this argument>}` as one evaluator, when its operator offers one (see `compileNegation`). */
  readonly negation?: Evaluator;
  /** A static `var` the scope reads in its field switch, without a call (see `DataScope.fieldOf`). */
  readonly field?: FieldRead;
  /** This argument as a test `and`/`or` can run as data (see flat-tests.ts). */
  readonly test?: FlatTest;
  /** This `and`/`or` as a group of tests, when it runs as one. */
  readonly group?: TestGroup;
}

/** Reads field `field` (with `key`, e.g. a header name) of the data; undefined when absent. */
export type FieldReader = (field: number, key: string, data: unknown, primitive: unknown) => unknown;

/** A static path the scope reads with one `switch` instead of a reader closure. */
export interface FieldRead {
  readonly field: number;
  readonly key: string;
  readonly read: FieldReader;
}

/** How `var`, `missing`, `has` and `fractional` find their data; differs between plain data and predicate mode. */
export interface DataScope {
  /** Compile-time resolution of a pre-split static path; returns an issue message when the path is not allowed. */
  resolveStatic(segments: readonly string[]): Evaluator | string;
  /** Called at compile time when a rule resolves paths only known at run time (`var` of a computed path, `missing`). */
  declareDynamicAccess(): void;
  /** Run-time resolution of a dynamic `var` argument; forbidden segments resolve to undefined. */
  resolveDynamic(data: unknown, primitive: unknown, path: unknown): unknown;
  /** The object `has`/`has_all` read with one argument (client capabilities in predicate mode). */
  readonly capabilities: Evaluator;
  /** The bucketing key `fractional` uses when the rule names none. */
  readonly defaultBucketKey: Evaluator;
  /** The field read of a static path, when the scope has one; must read what resolveStatic's evaluator reads. */
  fieldOf?(segments: readonly string[]): FieldRead | undefined;
}

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

import type { PrimitiveMetadata } from './primitive-metadata.js';

// The types src/core's modules share that src/index.ts does not export: the compiled forms of a
// rule (evaluators, compiled arguments, flat tests, field reads), the scope `var` resolves paths
// in, and a policy's compiled rule. They sit here, below every module that uses them, so that no
// two modules import each other for a type (test/core/import-cycles.test.ts): each used to live
// beside one of its users, and the other users imported it back.
//
// The public types stay where src/index.ts takes them from (logic/types.ts, policy/types.ts,
// context.ts, primitive-metadata.ts, policy/schema.ts); logic/types.ts re-exports the ones an OperatorDefinition's
// signature speaks in, so an operator file imports its whole vocabulary from there.

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
  /** This argument as a test `and`/`or` can run as data (see logic/flat-tests.ts). */
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

/** One test as data (logic/flat-tests.ts builds and runs them; only its `makeTest` builds one, so all share one shape). */
export interface FlatTest {
  /** Which test runTest applies: one of flat-tests.ts's `TestKind` values. */
  readonly kind: number;
  /** `!` of the result (tests never return arrays, so `!value` is JSON-Logic's negation). */
  readonly negate: boolean;
  /** The operand: field `field` (≥ 0) of the scope's field switch, or else `read`'s value. */
  readonly field: number;
  readonly key: string;
  readonly readField: FieldReader;
  readonly read: Evaluator;
  /** The literal the value is tested against: a value, list, Set, affix or predicate. */
  readonly literal: unknown;
}

/** `and` (stopOn false) or `or` (stopOn true) over tests. */
export interface TestGroup {
  readonly tests: readonly FlatTest[];
  readonly stopOn: boolean;
}

/** One rule of a policy after compilation (policy/compile-rules.ts): `appliesTo` as a matcher over metadata, `when` as an evaluator (null = always). */
export interface CompiledPolicyRule {
  readonly id: string;
  readonly description: string | undefined;
  readonly effect: 'allow' | 'deny';
  readonly appliesTo: (primitive: PrimitiveMetadata) => boolean;
  readonly when: Evaluator | null;
  /** `when` as a flat test or a group of them, when it runs as one (policy/first-decision.ts uses them). */
  readonly test: FlatTest | undefined;
  readonly group: TestGroup | undefined;
  /** True when `when` never returns an array, so its truthiness is plain `!!`. */
  readonly whenNeverArray: boolean;
  /**
   * Index of this rule's value in a per-request memo when `when` depends on the request alone
   * (one request needs it only once, however many primitives it filters); -1 otherwise.
   */
  readonly memoSlot: number;
}

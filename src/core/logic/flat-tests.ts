import { compareToVersion, type VersionComparison } from './semver.js';
import type { CompiledArg, Evaluator, FieldReader, FlatTest, TestGroup } from '../internal-types.js';

// Policies are mostly `and`/`or` over simple tests: one value of the request compared with
// literals (a client name `in` a list, `sem_ver >=`, a header `===`, an endpoint prefix). As
// closures, `and` calls each test and each test calls its `var` reader; V8 gives all closures
// made at one source site one set of inline caches, so once a process has a few rules those calls
// are megamorphic: never inlined, each a full call. Here the tests of one `and`/`or` are data,
// run by one function: the test is picked by a `switch`, the value read by the scope's field
// `switch`, and every call left is monomorphic. The values are the closures' own (the closures
// stay the reference; test/core/logic/flat-tests.test.ts compares both).

/** Which test runTest applies. */
export const TestKind = {
  /** The operand's value itself (any scalar-valued operation inside an `and`/`or`). */
  Value: 0,
  LooseEquals: 1,
  StrictEquals: 2,
  InList: 3,
  InSet: 4,
  /** A literal in a string (substring) or an array (member). */
  Contains: 5,
  StartsWith: 6,
  EndsWith: 7,
  /** `sem_ver` with a literal operator and target: `literal` is a VersionComparison. */
  Version: 8,
  /** A glob's literal prefix (`/mcp/**`): false, not null, for a value that is not a string. */
  Prefix: 9,
  /** Any other predicate over the value (a glob): `literal` is a `(value) => result` function. */
  Predicate: 10,
} as const;

type Kind = (typeof TestKind)[keyof typeof TestKind];

// FlatTest and TestGroup, the data these functions build and run, are declared in
// ../internal-types.ts (CompiledArg, which carries them, is there too).

const noFieldReader: FieldReader = () => undefined;

function makeTest(kind: number, negate: boolean, field: number, key: string, readField: FieldReader, read: Evaluator, literal: unknown): FlatTest {
  return { kind, negate, field, key, readField, read, literal };
}

function createTest(kind: Kind, negate: boolean, operand: CompiledArg, literal: unknown): FlatTest {
  const field = operand.field;
  if (field === undefined) return makeTest(kind, negate, -1, '', noFieldReader, operand.evaluate, literal);
  return makeTest(kind, negate, field.field, field.key, field.read, operand.evaluate, literal);
}

/** A test of `operand`'s value against `literal`; `negate` for `!=`, `!==`. */
export function flatTest(kind: Exclude<Kind, 0>, operand: CompiledArg, literal: unknown, negate = false): FlatTest {
  return createTest(kind, negate, operand, literal);
}

/** `!` of an argument that never evaluates to an array, as a test. */
export function negatedTest(arg: CompiledArg): FlatTest | undefined {
  if (!arg.neverArray) return undefined;
  const test = arg.test;
  return test === undefined ? createTest(TestKind.Value, true, arg, undefined) : negation(test);
}

function operandValue(test: FlatTest, data: unknown, primitive: unknown): unknown {
  if (test.field < 0) return test.read(data, primitive);
  const value = test.readField(test.field, test.key, data, primitive);
  return value === undefined ? null : value; // what `var` gives for a missing value
}

// The cases are number literals (TestKind's values), not `TestKind.…`: V8 compiles a switch
// over number literals to a jump table and any other switch to a chain of comparisons.
function testValue(kind: number, literal: unknown, value: unknown): unknown {
  switch (kind) {
    case 1: // LooseEquals
      // eslint-disable-next-line eqeqeq -- JSON-Logic's `==` is JavaScript's
      return value == literal;
    case 2: // StrictEquals
      return value === literal;
    case 3: // InList
      return (literal as readonly unknown[]).indexOf(value) !== -1;
    case 4: // InSet
      return (literal as ReadonlySet<unknown>).has(value);
    case 5: // Contains
      return containsItem(value, literal);
    case 6: // StartsWith
      return typeof value === 'string' ? value.startsWith(literal as string) : null;
    case 7: // EndsWith
      return typeof value === 'string' ? value.endsWith(literal as string) : null;
    case 8: // Version
      return compareToVersion(value, literal as VersionComparison);
    case 9: // Prefix
      return typeof value === 'string' && value.startsWith(literal as string);
    case 10: // Predicate
      return (literal as (value: unknown) => unknown)(value);
    default:
      return value;
  }
}

/**
 * `in`: a substring of a non-empty string (json-logic-js rejects a falsy haystack, even for
 * `""`), or a strict member of an array; anything else contains nothing.
 */
export function containsItem(container: unknown, item: unknown): boolean {
  if (typeof container === 'string') return container !== '' && container.indexOf(item as string) !== -1;
  if (Array.isArray(container)) return container.indexOf(item) !== -1;
  return false;
}

/** A test's value: what the closure of the same rule returns. */
export function runTest(test: FlatTest, data: unknown, primitive: unknown): unknown {
  const result = testValue(test.kind, test.literal, operandValue(test, data, primitive));
  return test.negate ? !result : result;
}

/** The group of an `and`/`or` when at least one operand is a test and none can be an array; undefined otherwise. */
export function testGroup(args: readonly CompiledArg[], stopOn: boolean): TestGroup | undefined {
  if (!args.some((arg) => arg.test !== undefined) || !args.every((arg) => arg.neverArray)) return undefined;
  return { tests: args.map((arg) => arg.test ?? createTest(TestKind.Value, false, arg, undefined)), stopOn };
}

/**
 * A group as a loop over its tests. Returns the value that decided, like the closures (and
 * json-logic-js): the first falsy (`and`) or truthy (`or`) value, else the last.
 */
export function compileTestGroup({ tests, stopOn }: TestGroup): Evaluator {
  return stopOn
    ? function anyTest(data, primitive) {
        let value: unknown;
        for (let index = 0; index < tests.length; index++) {
          value = runTest(tests[index]!, data, primitive);
          if (value) return value;
        }
        return value;
      }
    : function everyTest(data, primitive) {
        let value: unknown;
        for (let index = 0; index < tests.length; index++) {
          value = runTest(tests[index]!, data, primitive);
          if (!value) return value;
        }
        return value;
      };
}

/** `!` of a test. */
export function negation(test: FlatTest): FlatTest {
  return makeTest(test.kind, !test.negate, test.field, test.key, test.readField, test.read, test.literal);
}

/** A test of the value of `evaluate`, which must never return an array (`negate`: of its `!`). */
export function valueTest(evaluate: Evaluator, negate: boolean): FlatTest {
  return makeTest(TestKind.Value, negate, -1, '', noFieldReader, evaluate, undefined);
}

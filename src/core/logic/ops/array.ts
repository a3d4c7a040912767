import { PolicyEvaluationError } from '../../errors.js';
import { spendSteps } from '../budget.js';
import { containsItem, flatTest, TestKind } from '../flat-tests.js';
import { isTruthy } from '../truthy.js';
import type { Evaluator, OperatorDefinition } from '../types.js';

// The bodies of these operators (argument 1) see each item as their whole data, as in
// json-logic-js; `itemArgs` tells the compiler to compile them against plain item data.

function iterate(name: string, run: (items: readonly unknown[], body: Evaluator, primitive: unknown) => unknown, whenNotArray: () => unknown): OperatorDefinition {
  return {
    name,
    arity: { min: 2, max: 2 },
    pure: true,
    itemArgs: [1],
    iterates: true,
    neverArray: name === 'all' || name === 'none' || name === 'some',
    compile([source, body]) {
      const evaluateSource = source!.evaluate;
      const evaluateBody = body!.evaluate;
      return function iterateItems(data, primitive) {
        const items = evaluateSource(data, primitive);
        if (!Array.isArray(items)) return whenNotArray();
        spendSteps(items.length);
        return run(items, evaluateBody, primitive);
      };
    },
  };
}

const map = iterate(
  'map',
  (items, body, primitive) => items.map((item) => body(item, primitive)),
  () => [],
);

const filter = iterate(
  'filter',
  (items, body, primitive) => items.filter((item) => isTruthy(body(item, primitive))),
  () => [],
);

// `all` of an empty array is false, `none` of one is true: json-logic-js's choices.
const all = iterate(
  'all',
  (items, body, primitive) => items.length > 0 && items.every((item) => isTruthy(body(item, primitive))),
  () => false,
);

const none = iterate(
  'none',
  (items, body, primitive) => !items.some((item) => isTruthy(body(item, primitive))),
  () => true,
);

const some = iterate(
  'some',
  (items, body, primitive) => items.some((item) => isTruthy(body(item, primitive))),
  () => false,
);

/** `reduce`: the body sees `{current, accumulator}`; the initial value defaults to null. */
const reduce: OperatorDefinition = {
  name: 'reduce',
  arity: { min: 2, max: 3 },
  pure: true,
  itemArgs: [1],
  iterates: true,
  compile([source, body, initial]) {
    const evaluateSource = source!.evaluate;
    const evaluateBody = body!.evaluate;
    const evaluateInitial = initial?.evaluate;
    return function reduceItems(data, primitive) {
      const items = evaluateSource(data, primitive);
      const start = evaluateInitial ? evaluateInitial(data, primitive) : null;
      if (!Array.isArray(items)) return start;
      spendSteps(items.length);
      let accumulator = start;
      for (const current of items) accumulator = evaluateBody({ current, accumulator }, primitive);
      return accumulator;
    };
  },
};

/** `merge`: flattens one level, like `[].concat(a, b, …)`. */
const merge: OperatorDefinition = {
  name: 'merge',
  arity: { min: 0, max: Infinity },
  pure: true,
  compile(args, ctx) {
    const operands = args.map((arg) => arg.evaluate);
    const limit = ctx.options.maxIterations;
    return function merge(data, primitive) {
      let merged: unknown[] = [];
      for (const operand of operands) {
        merged = merged.concat(operand(data, primitive));
        if (merged.length > limit) throw new PolicyEvaluationError(`merge produced more than ${limit} elements`);
      }
      return merged;
    };
  },
};

/** A literal list is searched as `indexOf` does (strict equality); a Set does the same once the list is long. */
function usesSet(list: readonly unknown[]): boolean {
  return list.length > 8 && !list.some((item) => typeof item === 'number' && Number.isNaN(item));
}

/**
 * A literal list as the array `in` searches: a private, unfrozen copy. Literals are frozen, and
 * V8 does not inline `indexOf` on a frozen array (8–15 ns against 5 for three names).
 */
function searchable(list: readonly unknown[]): readonly unknown[] {
  return [...list];
}

/** `in` over a literal list: strict membership. */
function inLiteralList(literal: readonly unknown[], evaluateNeedle: Evaluator, negate: boolean): Evaluator {
  const list = searchable(literal);
  if (usesSet(list)) {
    const members = new Set<unknown>(list);
    return negate
      ? function notInConstantSet(data, primitive) {
          return !members.has(evaluateNeedle(data, primitive));
        }
      : function inConstantSet(data, primitive) {
          return members.has(evaluateNeedle(data, primitive));
        };
  }
  return negate
    ? function notInConstantList(data, primitive) {
        return list.indexOf(evaluateNeedle(data, primitive)) === -1;
      }
    : function inConstantList(data, primitive) {
        return list.indexOf(evaluateNeedle(data, primitive)) !== -1;
      };
}

function literalIn(item: unknown, evaluateContainer: Evaluator, negate: boolean): Evaluator {
  return negate
    ? function constantIsNotIn(data, primitive) {
        return !containsItem(evaluateContainer(data, primitive), item);
      }
    : function constantIsIn(data, primitive) {
        return containsItem(evaluateContainer(data, primitive), item);
      };
}

/** `in`: substring of a string, or strict membership in an array; anything else is false (see containsItem). */
const membership: OperatorDefinition = {
  name: 'in',
  arity: { min: 2, max: 2 },
  pure: true,
  neverArray: true,
  compile([needle, haystack]) {
    const evaluateNeedle = needle!.evaluate;
    if (haystack!.isConstant && Array.isArray(haystack!.constant)) return inLiteralList(haystack!.constant, evaluateNeedle, false);
    if (needle!.isConstant) return literalIn(needle!.constant, haystack!.evaluate, false);
    const evaluateHaystack = haystack!.evaluate;
    return function isIn(data, primitive) {
      return containsItem(evaluateHaystack(data, primitive), evaluateNeedle(data, primitive));
    };
  },
  // The two literal forms policies use (`!in` a list of names, a scope `!in` the granted ones).
  compileNegation([needle, haystack]) {
    if (haystack!.isConstant && Array.isArray(haystack!.constant)) return inLiteralList(haystack!.constant, needle!.evaluate, true);
    if (needle!.isConstant) return literalIn(needle!.constant, haystack!.evaluate, true);
    return undefined;
  },
  flatTest([needle, haystack]) {
    if (haystack!.isConstant && Array.isArray(haystack!.constant)) {
      const list: readonly unknown[] = haystack!.constant;
      return usesSet(list) ? flatTest(TestKind.InSet, needle!, new Set(list)) : flatTest(TestKind.InList, needle!, searchable(list));
    }
    if (needle!.isConstant) return flatTest(TestKind.Contains, haystack!, needle!.constant);
    return undefined;
  },
};

export const arrayOperators: readonly OperatorDefinition[] = [map, filter, reduce, all, none, some, merge, membership];

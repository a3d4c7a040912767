import { PolicyEvaluationError } from '../../errors.js';
import { spendSteps } from '../budget.js';
import { isTruthy } from '../truthy.js';
import type { Evaluator, OperatorDefinition } from '../types.js';

// The bodies of these operators (argument 1) see each item as their whole data, as in
// json-logic-js; `itemArgs` tells the compiler to compile them against plain item data.

function iterate(
  name: string,
  run: (items: readonly unknown[], body: Evaluator, primitive: unknown) => unknown,
  whenNotArray: () => unknown,
): OperatorDefinition {
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

const map = iterate('map', (items, body, primitive) => items.map((item) => body(item, primitive)), () => []);

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

const none = iterate('none', (items, body, primitive) => !items.some((item) => isTruthy(body(item, primitive))), () => true);

const some = iterate('some', (items, body, primitive) => items.some((item) => isTruthy(body(item, primitive))), () => false);

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

/** `in`: substring of a string, or strict membership in an array; anything else is false. */
const membership: OperatorDefinition = {
  name: 'in',
  arity: { min: 2, max: 2 },
  pure: true,
  neverArray: true,
  compile([needle, haystack]) {
    const evaluateNeedle = needle!.evaluate;
    if (haystack!.isConstant && Array.isArray(haystack!.constant)) {
      // A literal list: strict membership, as `indexOf` gives; a Set once the list is long.
      const list: readonly unknown[] = haystack!.constant;
      if (list.length > 8 && !list.some((item) => typeof item === 'number' && Number.isNaN(item))) {
        const members = new Set<unknown>(list);
        return function inConstantSet(data, primitive) {
          return members.has(evaluateNeedle(data, primitive));
        };
      }
      return function inConstantList(data, primitive) {
        return list.indexOf(evaluateNeedle(data, primitive)) !== -1;
      };
    }
    if (needle!.isConstant) {
      const item = needle!.constant;
      const evaluateContainer = haystack!.evaluate;
      return function constantIsIn(data, primitive) {
        const container = evaluateContainer(data, primitive);
        if (typeof container === 'string') return container.indexOf(item as string) !== -1;
        if (Array.isArray(container)) return container.indexOf(item) !== -1;
        return false;
      };
    }
    const evaluateHaystack = haystack!.evaluate;
    return function isIn(data, primitive) {
      const item = evaluateNeedle(data, primitive);
      const container = evaluateHaystack(data, primitive);
      if (typeof container === 'string') return container.indexOf(item as string) !== -1;
      if (Array.isArray(container)) return container.indexOf(item) !== -1;
      return false;
    };
  },
};

export const arrayOperators: readonly OperatorDefinition[] = [map, filter, reduce, all, none, some, merge, membership];

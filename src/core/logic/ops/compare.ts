import type { CompiledArg, Evaluator, OperatorDefinition } from '../types.js';

// Comparisons keep JavaScript's coercions on purpose: that is what json-logic-js does, and the
// official suite pins it (e.g. `{"==": [1, "1"]}` is true).

function binary(name: string, compare: (a: unknown, b: unknown) => boolean): OperatorDefinition {
  return {
    name,
    arity: { min: 2, max: 2 },
    pure: true,
    compile([left, right]) {
      const evaluateLeft = left!.evaluate;
      if (right!.isConstant) {
        const constant = right!.constant;
        return function compareToConstant(data, primitive) {
          return compare(evaluateLeft(data, primitive), constant);
        };
      }
      const evaluateRight = right!.evaluate;
      return function compareValues(data, primitive) {
        return compare(evaluateLeft(data, primitive), evaluateRight(data, primitive));
      };
    },
  };
}

/** `<` and `<=` also take three arguments: "between" (`a < b < c`). */
function between(name: string, compare: (a: unknown, b: unknown) => boolean): OperatorDefinition {
  const pair = binary(name, compare);
  return {
    name,
    arity: { min: 2, max: 3 },
    pure: true,
    compile(args, ctx, path) {
      if (args.length === 2) return pair.compile(args, ctx, path);
      const [low, middle, high] = args.map((arg: CompiledArg) => arg.evaluate) as [Evaluator, Evaluator, Evaluator];
      return function compareBetween(data, primitive) {
        const a = low(data, primitive);
        const b = middle(data, primitive);
        const c = high(data, primitive);
        return compare(a, b) && compare(b, c);
      };
    },
  };
}

/* eslint-disable eqeqeq */
export const compareOperators: readonly OperatorDefinition[] = [
  binary('==', (a, b) => a == b),
  binary('===', (a, b) => a === b),
  binary('!=', (a, b) => a != b),
  binary('!==', (a, b) => a !== b),
  binary('>', (a, b) => (a as number) > (b as number)),
  binary('>=', (a, b) => (a as number) >= (b as number)),
  between('<', (a, b) => (a as number) < (b as number)),
  between('<=', (a, b) => (a as number) <= (b as number)),
];

import { flatTest, TestKind } from '../flat-tests.js';
import type { CompiledArg, Evaluator, OperatorDefinition } from '../types.js';

// Comparisons keep JavaScript's coercions on purpose: that is what json-logic-js does, and the
// official suite pins it (e.g. `{"==": [1, "1"]}` is true). Each operator gets its own closures
// (no shared `compare` callback) so the hot path is one call per comparison.

type Operator = '==' | '===' | '!=' | '!==' | '>' | '>=' | '<' | '<=';

/* eslint-disable eqeqeq */
function compareWithConstant(operator: Operator, left: Evaluator, constant: unknown): Evaluator {
  const right = constant as number;
  switch (operator) {
    case '==':
      return (data, primitive) => left(data, primitive) == right;
    case '===':
      return (data, primitive) => left(data, primitive) === right;
    case '!=':
      return (data, primitive) => left(data, primitive) != right;
    case '!==':
      return (data, primitive) => left(data, primitive) !== right;
    case '>':
      return (data, primitive) => (left(data, primitive) as number) > right;
    case '>=':
      return (data, primitive) => (left(data, primitive) as number) >= right;
    case '<':
      return (data, primitive) => (left(data, primitive) as number) < right;
    case '<=':
      return (data, primitive) => (left(data, primitive) as number) <= right;
  }
}

function compareValues(operator: Operator, left: Evaluator, right: Evaluator): Evaluator {
  switch (operator) {
    case '==':
      return (data, primitive) => left(data, primitive) == right(data, primitive);
    case '===':
      return (data, primitive) => left(data, primitive) === right(data, primitive);
    case '!=':
      return (data, primitive) => left(data, primitive) != right(data, primitive);
    case '!==':
      return (data, primitive) => left(data, primitive) !== right(data, primitive);
    case '>':
      return (data, primitive) => (left(data, primitive) as number) > (right(data, primitive) as number);
    case '>=':
      return (data, primitive) => (left(data, primitive) as number) >= (right(data, primitive) as number);
    case '<':
      return (data, primitive) => (left(data, primitive) as number) < (right(data, primitive) as number);
    case '<=':
      return (data, primitive) => (left(data, primitive) as number) <= (right(data, primitive) as number);
  }
}
/* eslint-enable eqeqeq */

/** `a < b < c` (and `<=`): all three evaluated, as json-logic-js does, then both comparisons. */
function compareBetween(operator: '<' | '<=', [low, middle, high]: readonly Evaluator[]): Evaluator {
  const strict = operator === '<';
  return function compareBetween(data, primitive) {
    const a = low!(data, primitive) as number;
    const b = middle!(data, primitive) as number;
    const c = high!(data, primitive) as number;
    return strict ? a < b && b < c : a <= b && b <= c;
  };
}

// `!(a == b)` is `a != b` for every pair of values (the language defines `!=` that way), and the
// same holds for `===`; not for `<` and friends, where NaN makes `!(a < b)` differ from `a >= b`.
const complements: Partial<Record<Operator, Operator>> = { '==': '!=', '!=': '==', '===': '!==', '!==': '===' };

function comparison(operator: Operator): OperatorDefinition {
  const between = operator === '<' || operator === '<=';
  const complement = complements[operator];
  return {
    name: operator,
    arity: { min: 2, max: between ? 3 : 2 },
    pure: true,
    neverArray: true,
    compile(args: readonly CompiledArg[]) {
      if (args.length === 3)
        return compareBetween(
          operator as '<' | '<=',
          args.map((arg) => arg.evaluate),
        );
      const [left, right] = args as [CompiledArg, CompiledArg];
      if (right.isConstant) return compareWithConstant(operator, left.evaluate, right.constant);
      return compareValues(operator, left.evaluate, right.evaluate);
    },
    flatTest(args) {
      if (complement === undefined || args.length !== 2 || !args[1]!.isConstant) return undefined;
      const kind = operator === '==' || operator === '!=' ? TestKind.LooseEquals : TestKind.StrictEquals;
      return flatTest(kind, args[0]!, args[1]!.constant, operator === '!=' || operator === '!==');
    },
    compileNegation(args) {
      if (complement === undefined || args.length !== 2) return undefined;
      const [left, right] = args as [CompiledArg, CompiledArg];
      if (right.isConstant) return compareWithConstant(complement, left.evaluate, right.constant);
      return compareValues(complement, left.evaluate, right.evaluate);
    },
  };
}

export const compareOperators: readonly OperatorDefinition[] = (['==', '===', '!=', '!==', '>', '>=', '<', '<='] as const).map(comparison);

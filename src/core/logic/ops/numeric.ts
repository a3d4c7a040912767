import type { Evaluator, OperatorDefinition } from '../types.js';

// Arithmetic mirrors json-logic-js: `+` and `*` parse each operand with parseFloat (so "3.14"
// is 3.14 and "abc" is NaN), `-`, `/` and `%` use JavaScript's coercion.

const toFloat = (value: unknown) => parseFloat(value as string);

const add: OperatorDefinition = {
  name: '+',
  arity: { min: 1, max: Infinity },
  pure: true,
  neverArray: true,
  compile(args) {
    const operands = args.map((arg) => arg.evaluate);
    return function add(data, primitive) {
      let sum = 0;
      for (const operand of operands) sum = toFloat(sum) + toFloat(operand(data, primitive));
      return sum;
    };
  },
};

/** `*` of one operand returns it untouched: json-logic-js reduces without an initial value. */
const multiply: OperatorDefinition = {
  name: '*',
  arity: { min: 1, max: Infinity },
  pure: true,
  neverArray: (args) => args.length > 1 || args[0]!.neverArray,
  compile(args) {
    const operands = args.map((arg) => arg.evaluate);
    const [first] = operands as [Evaluator];
    return function multiply(data, primitive) {
      let product = first(data, primitive);
      for (let index = 1; index < operands.length; index++) {
        product = toFloat(product) * toFloat(operands[index]!(data, primitive));
      }
      return product;
    };
  },
};

const subtract: OperatorDefinition = {
  name: '-',
  arity: { min: 1, max: 2 },
  pure: true,
  neverArray: true,
  compile([left, right]) {
    const evaluateLeft = left!.evaluate;
    if (!right) {
      return function negate(data, primitive) {
        return -(evaluateLeft(data, primitive) as number);
      };
    }
    const evaluateRight = right.evaluate;
    return function subtract(data, primitive) {
      return (evaluateLeft(data, primitive) as number) - (evaluateRight(data, primitive) as number);
    };
  },
};

function arithmetic(name: string, apply: (a: number, b: number) => number): OperatorDefinition {
  return {
    name,
    arity: { min: 2, max: 2 },
    pure: true,
    neverArray: true,
    compile([left, right]) {
      const evaluateLeft = left!.evaluate;
      const evaluateRight = right!.evaluate;
      return function arithmetic(data, primitive) {
        return apply(evaluateLeft(data, primitive) as number, evaluateRight(data, primitive) as number);
      };
    },
  };
}

function extreme(name: string, pick: (...values: number[]) => number): OperatorDefinition {
  return {
    name,
    arity: { min: 1, max: Infinity },
    pure: true,
    neverArray: true,
    compile(args) {
      const operands = args.map((arg) => arg.evaluate);
      return function extreme(data, primitive) {
        return pick(...operands.map((operand) => operand(data, primitive) as number));
      };
    },
  };
}

export const numericOperators: readonly OperatorDefinition[] = [
  add,
  multiply,
  subtract,
  arithmetic('/', (a, b) => a / b),
  arithmetic('%', (a, b) => a % b),
  extreme('min', Math.min),
  extreme('max', Math.max),
];

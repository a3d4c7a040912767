import { compileTestGroup, negatedTest, testGroup } from '../flat-tests.js';
import { isTruthy } from '../truthy.js';
import type { CompiledArg, Evaluator, OperatorDefinition } from '../types.js';

// Truthiness costs an array check; operands known never to be arrays (comparisons, `!`, `has`,
// …) skip it, which is most of a policy's hot path.

const allNeverArray = (args: readonly CompiledArg[]) => args.every((arg) => arg.neverArray);

function negation(name: '!' | '!!', negate: boolean): OperatorDefinition {
  return {
    name,
    arity: { min: 1, max: 1 },
    pure: true,
    neverArray: true,
    flatTest: negate ? ([operand]) => negatedTest(operand!) : undefined,
    compile([operand]) {
      if (negate && operand!.negation !== undefined) return operand!.negation;
      const evaluate = operand!.evaluate;
      if (operand!.neverArray) {
        return negate ? (data, primitive) => !evaluate(data, primitive) : (data, primitive) => !!evaluate(data, primitive);
      }
      return negate ? (data, primitive) => !isTruthy(evaluate(data, primitive)) : (data, primitive) => isTruthy(evaluate(data, primitive));
    },
  };
}

/**
 * `and` returns the first falsy value or the last one, `or` the first truthy value or the last,
 * like json-logic-js (not booleans). `stopOn` is the truthiness that ends the evaluation.
 */
function shortCircuit(name: 'and' | 'or', stopOn: boolean): OperatorDefinition {
  return {
    name,
    arity: { min: 1, max: Infinity },
    pure: true,
    neverArray: allNeverArray,
    testGroup: (args) => testGroup(args, stopOn),
    compile(args) {
      const group = testGroup(args, stopOn);
      if (group !== undefined) return compileTestGroup(group);
      const operands = args.map((arg) => arg.evaluate);
      if (operands.length === 2 && args[0]!.neverArray) {
        const [first, second] = operands as [Evaluator, Evaluator];
        return function shortCircuitPair(data, primitive) {
          const value = first(data, primitive);
          return !value === !stopOn ? value : second(data, primitive);
        };
      }
      // Two loops rather than a truthiness callback: the hot one tests `!value` inline.
      if (allNeverArray(args)) {
        return function shortCircuitScalars(data, primitive) {
          let value: unknown;
          for (let index = 0; index < operands.length; index++) {
            value = operands[index]!(data, primitive);
            if (!value === !stopOn) return value;
          }
          return value;
        };
      }
      return function shortCircuitAll(data, primitive) {
        let value: unknown;
        for (let index = 0; index < operands.length; index++) {
          value = operands[index]!(data, primitive);
          if (isTruthy(value) === stopOn) return value;
        }
        return value;
      };
    },
  };
}

/** `if`: condition/consequent pairs, then an optional else; no else and no match gives null. */
function conditional(name: string): OperatorDefinition {
  return {
    name,
    arity: { min: 0, max: Infinity },
    pure: true,
    neverArray: (args) => args.every((arg, index) => arg.neverArray || (index % 2 === 0 && index !== args.length - 1)),
    compile(args) {
      const operands = args.map((arg) => arg.evaluate);
      const pairs = Math.floor(operands.length / 2);
      const otherwise = operands.length % 2 === 1 ? operands[operands.length - 1]! : undefined;
      if (pairs === 1 && otherwise) {
        const [test, then] = operands as [Evaluator, Evaluator];
        return function ifElse(data, primitive) {
          return isTruthy(test(data, primitive)) ? then(data, primitive) : otherwise(data, primitive);
        };
      }
      return function ifChain(data, primitive) {
        for (let pair = 0; pair < pairs; pair++) {
          if (isTruthy(operands[pair * 2]!(data, primitive))) return operands[pair * 2 + 1]!(data, primitive);
        }
        return otherwise ? otherwise(data, primitive) : null;
      };
    },
  };
}

export const logicOperators: readonly OperatorDefinition[] = [
  negation('!', true),
  negation('!!', false),
  shortCircuit('and', false),
  shortCircuit('or', true),
  conditional('if'),
  conditional('?:'),
];

import { isTruthy } from '../truthy.js';
import type { Evaluator, OperatorDefinition } from '../types.js';

const evaluators = (args: readonly { evaluate: Evaluator }[]) => args.map((arg) => arg.evaluate);

const not: OperatorDefinition = {
  name: '!',
  arity: { min: 1, max: 1 },
  pure: true,
  compile([operand]) {
    const evaluate = operand!.evaluate;
    return function not(data, primitive) {
      return !isTruthy(evaluate(data, primitive));
    };
  },
};

const toBoolean: OperatorDefinition = {
  name: '!!',
  arity: { min: 1, max: 1 },
  pure: true,
  compile([operand]) {
    const evaluate = operand!.evaluate;
    return function toBoolean(data, primitive) {
      return isTruthy(evaluate(data, primitive));
    };
  },
};

/** `and` returns the first falsy value or the last one, like json-logic-js (not a boolean). */
const and: OperatorDefinition = {
  name: 'and',
  arity: { min: 1, max: Infinity },
  pure: true,
  compile(args) {
    const operands = evaluators(args);
    if (operands.length === 2) {
      const [first, second] = operands as [Evaluator, Evaluator];
      return function andPair(data, primitive) {
        const value = first(data, primitive);
        return isTruthy(value) ? second(data, primitive) : value;
      };
    }
    return function and(data, primitive) {
      let value: unknown;
      for (let index = 0; index < operands.length; index++) {
        value = operands[index]!(data, primitive);
        if (!isTruthy(value)) return value;
      }
      return value;
    };
  },
};

const or: OperatorDefinition = {
  name: 'or',
  arity: { min: 1, max: Infinity },
  pure: true,
  compile(args) {
    const operands = evaluators(args);
    if (operands.length === 2) {
      const [first, second] = operands as [Evaluator, Evaluator];
      return function orPair(data, primitive) {
        const value = first(data, primitive);
        return isTruthy(value) ? value : second(data, primitive);
      };
    }
    return function or(data, primitive) {
      let value: unknown;
      for (let index = 0; index < operands.length; index++) {
        value = operands[index]!(data, primitive);
        if (isTruthy(value)) return value;
      }
      return value;
    };
  },
};

/** `if`: condition/consequent pairs, then an optional else; no else and no match gives null. */
function conditional(name: string): OperatorDefinition {
  return {
    name,
    arity: { min: 0, max: Infinity },
    pure: true,
    compile(args) {
      const operands = evaluators(args);
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

export const logicOperators: readonly OperatorDefinition[] = [not, toBoolean, and, or, conditional('if'), conditional('?:')];

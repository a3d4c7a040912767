import { PolicyEvaluationError } from '../../errors.js';
import type { OperatorDefinition } from '../types.js';

function checkLength(result: string, limit: number, name: string): string {
  if (result.length > limit) throw new PolicyEvaluationError(`${name} produced a string longer than ${limit} characters`);
  return result;
}

/** `cat`: joins its arguments as strings (null and undefined become ""), as `Array.prototype.join('')`. */
const concatenate: OperatorDefinition = {
  name: 'cat',
  arity: { min: 0, max: Infinity },
  pure: true,
  neverArray: true,
  compile(args, ctx) {
    const operands = args.map((arg) => arg.evaluate);
    const limit = ctx.options.maxStringLength;
    return function cat(data, primitive) {
      const values = operands.map((operand) => operand(data, primitive));
      return checkLength(values.join(''), limit, 'cat');
    };
  },
};

/** `substr`: start may be negative; a negative length drops characters from the end (PHP-style). */
const substring: OperatorDefinition = {
  name: 'substr',
  arity: { min: 2, max: 3 },
  pure: true,
  neverArray: true,
  compile([sourceArg, startArg, lengthArg]) {
    return function substr(data, primitive) {
      const source = String(sourceArg!.evaluate(data, primitive));
      const start = startArg!.evaluate(data, primitive) as number;
      const length = lengthArg?.evaluate(data, primitive) as number | undefined;
      if ((length as number) < 0) {
        const tail = source.substr(start);
        return tail.substr(0, tail.length + (length as number));
      }
      return source.substr(start, length);
    };
  },
};

export const textOperators: readonly OperatorDefinition[] = [concatenate, substring];

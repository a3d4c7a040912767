import { compileGlob, simpleGlob } from '../glob-matcher.js';
import { flatTest, TestKind } from '../flat-tests.js';
import type { OperatorDefinition } from '../types.js';

/** `glob`: `{"glob": ["/mcp/admin/**", {"var": "request.endpoint"}]}`; the pattern must be a literal so it compiles once. */
const glob: OperatorDefinition = {
  name: 'glob',
  arity: { min: 2, max: 2 },
  pure: true,
  neverArray: true,
  compile([patternArg, valueArg], ctx) {
    if (!patternArg!.isConstant || typeof patternArg!.constant !== 'string') {
      ctx.report({ code: 'invalid_argument', path: patternArg!.path, message: 'glob pattern must be a literal string' });
      return () => false;
    }
    const matches = compileGlob(patternArg!.constant);
    const evaluateValue = valueArg!.evaluate;
    return function glob(data, primitive) {
      const value = evaluateValue(data, primitive);
      return typeof value === 'string' && matches(value);
    };
  },
  flatTest([patternArg, valueArg]) {
    if (!patternArg!.isConstant || typeof patternArg!.constant !== 'string') return undefined;
    const pattern = patternArg!.constant;
    const simple = simpleGlob(pattern);
    // `===` a string literal is already false for anything that is not a string.
    if (simple !== undefined && 'exact' in simple) return flatTest(TestKind.StrictEquals, valueArg!, simple.exact);
    if (simple !== undefined) return flatTest(TestKind.Prefix, valueArg!, simple.prefix);
    const matches = compileGlob(pattern);
    return flatTest(TestKind.Predicate, valueArg!, function globMatches(value: unknown) {
      return typeof value === 'string' && matches(value);
    });
  },
  compileNegation([patternArg, valueArg]) {
    if (!patternArg!.isConstant || typeof patternArg!.constant !== 'string') return undefined;
    const matches = compileGlob(patternArg!.constant);
    const evaluateValue = valueArg!.evaluate;
    return function globMismatch(data, primitive) {
      const value = evaluateValue(data, primitive);
      return typeof value !== 'string' || !matches(value);
    };
  },
};

export const globOperators: readonly OperatorDefinition[] = [glob];

import { flatTest, TestKind } from '../flat-tests.js';
import type { CompiledArg, CompileContext, Evaluator, OperatorDefinition } from '../types.js';

// flagd's `starts_with` and `ends_with`: case-sensitive, both arguments strings. Anything else
// yields null rather than false (flagd-testbed pins this): a flag whose variants include "false"
// must fall back to its default, not pick that variant.

type AffixTest = (value: string, affix: string) => boolean;

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function reportNonStrings(name: string, args: readonly CompiledArg[], ctx: CompileContext): boolean {
  let valid = true;
  for (const arg of args) {
    if (arg.isConstant && typeof arg.constant !== 'string') {
      ctx.report({
        code: 'invalid_argument',
        path: arg.path,
        message: `${name} compares strings, got ${describeValue(arg.constant)}`,
      });
      valid = false;
    }
  }
  return valid;
}

function defineAffixOperator(name: string, test: AffixTest, kind: typeof TestKind.StartsWith | typeof TestKind.EndsWith): OperatorDefinition {
  return {
    name,
    arity: { min: 2, max: 2 },
    pure: true,
    neverArray: true,
    compile(args, ctx): Evaluator {
      if (!reportNonStrings(name, args, ctx)) return () => null;
      const [valueArg, affixArg] = args as [CompiledArg, CompiledArg];
      const evaluateValue = valueArg.evaluate;
      if (affixArg.isConstant) {
        const affix = affixArg.constant as string;
        return function matchConstantAffix(data, primitive) {
          const value = evaluateValue(data, primitive);
          return typeof value === 'string' ? test(value, affix) : null;
        };
      }
      const evaluateAffix = affixArg.evaluate;
      return function matchAffix(data, primitive) {
        const value = evaluateValue(data, primitive);
        const affix = evaluateAffix(data, primitive);
        return typeof value === 'string' && typeof affix === 'string' ? test(value, affix) : null;
      };
    },
    flatTest([valueArg, affixArg]) {
      if (!affixArg!.isConstant || typeof affixArg!.constant !== 'string') return undefined;
      return flatTest(kind, valueArg!, affixArg!.constant);
    },
    // `!` of the null above is true, so a value that is not a string fails the test.
    compileNegation([valueArg, affixArg]) {
      if (!affixArg!.isConstant || typeof affixArg!.constant !== 'string') return undefined;
      const affix = affixArg!.constant;
      const evaluateValue = valueArg!.evaluate;
      return function failConstantAffix(data, primitive) {
        const value = evaluateValue(data, primitive);
        return typeof value === 'string' ? !test(value, affix) : true;
      };
    },
  };
}

export const stringOperators: readonly OperatorDefinition[] = [
  defineAffixOperator('starts_with', (value, prefix) => value.startsWith(prefix), TestKind.StartsWith),
  defineAffixOperator('ends_with', (value, suffix) => value.endsWith(suffix), TestKind.EndsWith),
];

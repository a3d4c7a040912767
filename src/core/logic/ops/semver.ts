import { flatTest, TestKind } from '../flat-tests.js';
import { compareToVersion, parseSemVer, readVersion, versionComparison, versionHolds, versionOperators, type SemVer, type VersionComparison } from '../semver.js';
import type { CompiledArg, CompileContext, Evaluator, OperatorDefinition } from '../types.js';

// `sem_ver`: `{"sem_ver": [<version>, <operator>, <version>]}`, flagd's semantics (see ../semver.ts).

export { compareSemVer, parseSemVer, type SemVer } from '../semver.js';

function isVersionOperator(operator: unknown): operator is string {
  return typeof operator === 'string' && versionOperators.has(operator);
}

/** A reader with a one-entry memo in front of the shared cache: a list request asks about one caller's version 1,000 times. */
function createVersionReader(): (value: unknown) => SemVer | null {
  let lastValue: unknown = null;
  let lastVersion: SemVer | null = null;
  return function readVersionOnce(value) {
    if (value !== lastValue) {
      lastVersion = readVersion(value);
      lastValue = value;
    }
    return lastVersion;
  };
}

function reportLiterals(args: readonly CompiledArg[], ctx: CompileContext): boolean {
  const [actual, operator, target] = args as [CompiledArg, CompiledArg, CompiledArg];
  let valid = true;
  if (operator.isConstant && !isVersionOperator(operator.constant)) {
    const names = [...versionOperators].map((name) => JSON.stringify(name)).join(', ');
    ctx.report({
      code: 'invalid_argument',
      path: operator.path,
      message: `sem_ver operator must be one of ${names}, got ${JSON.stringify(operator.constant)}`,
    });
    valid = false;
  }
  for (const version of [actual, target]) {
    if (version.isConstant && parseSemVer(version.constant) === null) {
      ctx.report({
        code: 'invalid_argument',
        path: version.path,
        message: `sem_ver needs a semantic version, got ${JSON.stringify(version.constant)}`,
      });
      valid = false;
    }
  }
  return valid;
}

/** The literal comparison of `[value, operator, target]`, when operator and target are valid literals. */
function literalComparison(operatorArg: CompiledArg, targetArg: CompiledArg): VersionComparison | undefined {
  if (!operatorArg.isConstant || !targetArg.isConstant || !isVersionOperator(operatorArg.constant)) return undefined;
  const target = parseSemVer(targetArg.constant);
  return target === null ? undefined : versionComparison(operatorArg.constant, target);
}

const semVer: OperatorDefinition = {
  name: 'sem_ver',
  arity: { min: 3, max: 3 },
  pure: true,
  neverArray: true,
  compile(args, ctx): Evaluator {
    const [actualArg, operatorArg, targetArg] = args as [CompiledArg, CompiledArg, CompiledArg];
    if (!reportLiterals(args, ctx)) return () => null;
    const readActual = createVersionReader();
    const evaluateActual = actualArg.evaluate;
    const comparison = literalComparison(operatorArg, targetArg);
    if (comparison !== undefined) {
      // The common shape, `[{"var": "version"}, ">=", "2.0.0"]`: operator and target resolved once.
      const { operator, target } = comparison;
      return function compareToConstantVersion(data, primitive) {
        const actual = readActual(evaluateActual(data, primitive));
        return actual === null ? null : versionHolds(operator, actual, target);
      };
    }
    const readTarget = createVersionReader();
    return function compareVersions(data, primitive) {
      const operator = operatorArg.evaluate(data, primitive);
      const actual = readActual(evaluateActual(data, primitive));
      const target = readTarget(targetArg.evaluate(data, primitive));
      return !isVersionOperator(operator) || actual === null || target === null ? null : versionHolds(operator, actual, target);
    };
  },
  flatTest([actualArg, operatorArg, targetArg]) {
    const comparison = literalComparison(operatorArg!, targetArg!);
    return comparison === undefined ? undefined : flatTest(TestKind.Version, actualArg!, comparison);
  },
  // `!` of null (not a version) is true: such a value fails the comparison.
  compileNegation([actualArg, operatorArg, targetArg]) {
    const comparison = literalComparison(operatorArg!, targetArg!);
    if (comparison === undefined) return undefined;
    const evaluateActual = actualArg!.evaluate;
    return function failConstantVersion(data, primitive) {
      return !compareToVersion(evaluateActual(data, primitive), comparison);
    };
  },
};

export const semverOperators: readonly OperatorDefinition[] = [semVer];

import { forbiddenSegments, isWholeDataPath, splitPath } from '../path.js';
import type { CompileContext, CompiledArg, DataScope, Evaluator, OperatorDefinition } from '../types.js';

/** `var`: a dot path (pre-split when literal) with an optional default for missing values. */
const variable: OperatorDefinition = {
  name: 'var',
  arity: { min: 0, max: 2 },
  pure: false,
  fieldRead([pathArg, fallbackArg], scope) {
    if (pathArg === undefined || !pathArg.isConstant || fallbackArg !== undefined || scope.fieldOf === undefined) return undefined;
    return scope.fieldOf(isWholeDataPath(pathArg.constant) ? [] : splitPath(pathArg.constant));
  },
  compile(args, ctx, path) {
    const [pathArg, fallbackArg] = args;
    const fallback = fallbackArg?.evaluate;
    if (pathArg === undefined || pathArg.isConstant) {
      const resolve = compileStaticPath(pathArg?.constant, ctx, pathArg?.path ?? path);
      if (!fallback) {
        return function readVar(data, primitive) {
          const value = resolve(data, primitive);
          return value === undefined ? null : value;
        };
      }
      return function readVarOrDefault(data, primitive) {
        const value = resolve(data, primitive);
        return value === undefined ? fallback(data, primitive) : value;
      };
    }
    const evaluatePath = pathArg.evaluate;
    const scope = ctx.scope;
    scope.declareDynamicAccess();
    return function readDynamicVar(data, primitive) {
      const value = scope.resolveDynamic(data, primitive, evaluatePath(data, primitive));
      if (value !== undefined) return value;
      return fallback ? fallback(data, primitive) : null;
    };
  },
};

function compileStaticPath(pathValue: unknown, ctx: CompileContext, path: string): Evaluator {
  const segments = isWholeDataPath(pathValue) ? [] : splitPath(pathValue);
  const forbidden = segments.find((segment) => forbiddenSegments.has(segment));
  if (forbidden !== undefined) {
    ctx.report({ code: 'forbidden_path', path, message: `path segment "${forbidden}" is not allowed` });
    return () => undefined;
  }
  const resolved = ctx.scope.resolveStatic(segments);
  if (typeof resolved === 'string') {
    ctx.report({ code: 'invalid_argument', path, message: resolved });
    return () => undefined;
  }
  return resolved;
}

/** A literal key and the static reader of its path (the read the scope recorded for it). */
interface LiteralKey {
  readonly key: unknown;
  readonly read: Evaluator;
}

/** The keys whose values are absent; json-logic-js counts null and "" as absent too. */
function absentKeys(keys: readonly LiteralKey[], data: unknown, primitive: unknown): unknown[] {
  const absent: unknown[] = [];
  for (const { key, read } of keys) if (isAbsent(read(data, primitive))) absent.push(key);
  return absent;
}

function absentDynamicKeys(scope: DataScope, data: unknown, primitive: unknown, keys: readonly unknown[]): unknown[] {
  const absent: unknown[] = [];
  for (const key of keys) if (isAbsent(scope.resolveDynamic(data, primitive, key))) absent.push(key);
  return absent;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** `missing`: the keys whose values are absent; one array argument is the list of keys. */
const missing: OperatorDefinition = {
  name: 'missing',
  arity: { min: 0, max: Infinity },
  pure: false,
  compile(args, ctx) {
    if (checkLiteralKeys(args, ctx)) {
      const values = args.map((arg) => arg.constant);
      const keys = literalKeys(Array.isArray(values[0]) ? (values[0] as unknown[]) : values, ctx);
      return function missing(data, primitive) {
        return absentKeys(keys, data, primitive);
      };
    }
    ctx.scope.declareDynamicAccess();
    const keyEvaluators = args.map((arg) => arg.evaluate);
    const scope = ctx.scope;
    return function missingDynamic(data, primitive) {
      const values = keyEvaluators.map((evaluate) => evaluate(data, primitive));
      const keys = Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
      return absentDynamicKeys(scope, data, primitive, keys);
    };
  },
};

/** `missing_some`: [] when at least `need` of the keys are present, else the missing keys. */
const missingSome: OperatorDefinition = {
  name: 'missing_some',
  arity: { min: 2, max: 2 },
  pure: false,
  compile([needArg, keysArg], ctx) {
    const enough = (options: unknown, absent: readonly unknown[], need: unknown) => {
      const count = (options as { length?: unknown } | null | undefined)?.length;
      return (count as number) - absent.length >= (need as number);
    };
    if (checkLiteralKeys([keysArg!], ctx)) {
      const options = keysArg!.constant;
      const keys = literalKeys(Array.isArray(options) ? options : [options], ctx);
      return function missingSome(data, primitive) {
        const absent = absentKeys(keys, data, primitive);
        return enough(options, absent, needArg!.evaluate(data, primitive)) ? [] : absent;
      };
    }
    ctx.scope.declareDynamicAccess();
    const scope = ctx.scope;
    return function missingSomeDynamic(data, primitive) {
      const need = needArg!.evaluate(data, primitive);
      const options = keysArg!.evaluate(data, primitive);
      const keys = Array.isArray(options) ? options : [options];
      const absent = absentDynamicKeys(scope, data, primitive, keys);
      return enough(options, absent, need) ? [] : absent;
    };
  },
};

/**
 * Literal keys are checked at compile time: a forbidden segment or an unknown root is a mistake
 * worth reporting. Returns false when some key is only known at run time.
 */
function checkLiteralKeys(args: readonly CompiledArg[], ctx: CompileContext): boolean {
  let allLiteral = true;
  for (const arg of args) {
    if (!arg.isConstant) {
      allLiteral = false;
      continue;
    }
    const keys = Array.isArray(arg.constant) ? arg.constant : [arg.constant];
    keys.forEach((key, index) => {
      const at = Array.isArray(arg.constant) ? `${arg.path}[${index}]` : arg.path;
      compileStaticPath(key, ctx, at);
    });
  }
  return allLiteral;
}

/**
 * The keys a literal `missing` tests, each with the static reader `var` would use: the scope
 * records that read for cache keys, so the key covers exactly what runs. (checkLiteralKeys has
 * reported any bad key already.)
 */
function literalKeys(keys: readonly unknown[], ctx: CompileContext): LiteralKey[] {
  const quiet: CompileContext = { ...ctx, report() {} };
  return keys.map((key) => ({ key, read: compileStaticPath(key, quiet, '') }));
}

export const dataOperators: readonly OperatorDefinition[] = [variable, missing, missingSome];

import { checkCapabilityPath, compilePresenceCheck, hasCapabilityPath, type PresenceCheck } from '../capability-path.js';
import type { CompileContext, CompiledArg, Evaluator, OperatorDefinition } from '../types.js';

// `has` / `has_all` test presence of capability paths. With paths only, they read the scope's
// capabilities (the client's, in policies); with a leading value, they read that value:
//   {"has": "sampling"}    {"has": [{"var": "auth.claims"}, "org.admin"]}
//   {"has_all": ["sampling", "roots"]}    {"has_all": [{"var": "…"}, ["a", "b"]]}

function compilePathChecks(pathArgs: readonly CompiledArg[], ctx: CompileContext): Array<PresenceCheck | Evaluator> {
  return pathArgs.map((arg) => {
    if (!arg.isConstant) return arg.evaluate;
    if (typeof arg.constant !== 'string') {
      ctx.report({ code: 'invalid_argument', path: arg.path, message: 'a capability path must be a string' });
      return () => false;
    }
    const problem = checkCapabilityPath(arg.constant);
    if (problem) ctx.report({ code: 'invalid_argument', path: arg.path, message: problem });
    return compilePresenceCheck(arg.constant);
  });
}

const has: OperatorDefinition = {
  name: 'has',
  arity: { min: 1, max: 2 },
  pure: false,
  neverArray: true,
  compile(args, ctx) {
    const root = args.length === 2 ? args[0]!.evaluate : ctx.scope.capabilities;
    const pathArg = args[args.length - 1]!;
    if (pathArg.isConstant) {
      const [check] = compilePathChecks([pathArg], ctx) as [PresenceCheck];
      return function has(data, primitive) {
        return check(root(data, primitive));
      };
    }
    return function hasDynamic(data, primitive) {
      return hasCapabilityPath(root(data, primitive), pathArg.evaluate(data, primitive));
    };
  },
};

const hasAll: OperatorDefinition = {
  name: 'has_all',
  arity: { min: 1, max: Infinity },
  pure: false,
  neverArray: true,
  compile(args, ctx) {
    const last = args[args.length - 1]!;
    const listGiven = last.isConstant && Array.isArray(last.constant);
    if (!listGiven && args.some((arg) => !arg.isConstant)) {
      ctx.report({
        code: 'invalid_argument',
        path: last.path,
        message: 'has_all takes literal paths, or a value followed by an array of literal paths',
      });
      return () => false;
    }
    if (listGiven && args.length > 2) {
      ctx.report({ code: 'arity', path: last.path, message: 'has_all takes at most a value and an array of paths' });
      return () => false;
    }
    const root = listGiven && args.length === 2 ? args[0]!.evaluate : ctx.scope.capabilities;
    const paths = listGiven ? (last.constant as unknown[]) : args.map((arg) => arg.constant);
    const checks = compilePathChecks(
      paths.map((constant, index) => ({
        evaluate: () => constant,
        isConstant: true,
        constant,
        raw: constant,
        neverArray: !Array.isArray(constant),
        path: listGiven ? `${last.path}[${index}]` : args[index]!.path,
      })),
      ctx,
    ) as PresenceCheck[];
    return function hasAll(data, primitive) {
      const value = root(data, primitive);
      for (let index = 0; index < checks.length; index++) if (!checks[index]!(value)) return false;
      return true;
    };
  },
};

export const presenceOperators: readonly OperatorDefinition[] = [has, hasAll];

import { joinPath, type PolicyIssue } from '../errors.js';
import { arrayOperators } from './ops/array.js';
import { compareOperators } from './ops/compare.js';
import { dataOperators } from './ops/data.js';
import { fractionalOperators } from './ops/fractional.js';
import { globOperators } from './ops/glob.js';
import { logicOperators } from './ops/logic.js';
import { numericOperators } from './ops/numeric.js';
import { presenceOperators } from './ops/presence.js';
import { semverOperators } from './ops/semver.js';
import { stringOperators } from './ops/string.js';
import { textOperators } from './ops/text.js';
import type { OperatorDefinition } from './types.js';

/** User-supplied operators: called with the evaluated arguments. A throw hides the primitive (fail closed). */
export type CustomOperators = Readonly<Record<string, (...args: unknown[]) => unknown>>;

export const builtinOperators: ReadonlyMap<string, OperatorDefinition> = new Map(
  [
    ...compareOperators,
    ...logicOperators,
    ...dataOperators,
    ...arrayOperators,
    ...textOperators,
    ...numericOperators,
    ...presenceOperators,
    ...globOperators,
    ...stringOperators,
    ...semverOperators,
    ...fractionalOperators,
  ].map((operator) => [operator.name, operator]),
);

const customName = /^[a-z][a-z0-9_]*$/;
const reservedNames = new Set(['log', 'method']);

/** The built-ins plus valid custom operators; invalid custom ones are reported as issues. */
export function createOperatorTable(custom: CustomOperators | undefined, issues: PolicyIssue[]): ReadonlyMap<string, OperatorDefinition> {
  if (!custom) return builtinOperators;
  const table = new Map(builtinOperators);
  for (const name of Object.keys(custom)) {
    const path = joinPath('operators', name);
    const implementation = custom[name];
    if (!customName.test(name) || reservedNames.has(name)) {
      issues.push({ code: 'invalid_argument', path, message: `custom operator name "${name}" must be snake_case and not reserved` });
    } else if (builtinOperators.has(name)) {
      issues.push({ code: 'invalid_argument', path, message: `custom operator "${name}" would shadow a built-in operator` });
    } else if (typeof implementation !== 'function') {
      issues.push({ code: 'invalid_argument', path, message: `custom operator "${name}" must be a function` });
    } else {
      table.set(name, defineCustomOperator(name, implementation));
    }
  }
  return table;
}

function defineCustomOperator(name: string, implementation: (...args: unknown[]) => unknown): OperatorDefinition {
  return {
    name,
    arity: { min: 0, max: Infinity },
    // Custom operators may read clocks or counters, so they are never folded at compile time.
    pure: false,
    compile(args) {
      const operands = args.map((arg) => arg.evaluate);
      return function callCustomOperator(data, primitive) {
        return implementation(...operands.map((operand) => operand(data, primitive)));
      };
    },
  };
}

import type { Policy } from '../core/policy/types.js';

/** True for a compiled policy (anything implementing the Policy interface). */
export function isPolicy(value: unknown): value is Policy {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Record<keyof Policy, unknown>>;
  return (
    typeof candidate.evaluate === 'function' &&
    typeof candidate.explain === 'function' &&
    typeof candidate.contextKey === 'function' &&
    typeof candidate.revision === 'string'
  );
}

/** Accepts a compiled Policy as is; a plain document is compiled (errors name every bad rule). */
export function resolvePolicy(input: unknown, optionName = 'policy'): Policy {
  if (isPolicy(input)) return input;
  throw new TypeError(`mcp-gate: option "${optionName}" must be a compiled Policy`);
}

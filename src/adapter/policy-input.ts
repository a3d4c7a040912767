import { PolicyOptionError } from '../core/errors.js';
import { compilePolicy } from '../core/policy/compile-policy.js';
import type { Policy } from '../core/policy/types.js';
import type { MissingCapabilities } from './policy-view.js';

/**
 * True for a compiled policy (anything implementing the Policy interface). Checks the members the
 * adapters call: they key caches with `contextKeyFor` (narrowed to one registry's primitives).
 */
export function isPolicy(value: unknown): value is Policy {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<Record<keyof Policy, unknown>>;
  return (
    typeof candidate.evaluate === 'function' &&
    typeof candidate.forContext === 'function' &&
    typeof candidate.explain === 'function' &&
    typeof candidate.contextKeyFor === 'function' &&
    typeof candidate.readsFor === 'function' &&
    typeof candidate.revision === 'string'
  );
}

export interface ResolvePolicyOptions {
  readonly onMissingCapabilities: MissingCapabilities;
}

/** Accepts a compiled Policy as is; a plain document is compiled (errors name every bad rule). */
export function resolvePolicy(input: unknown, optionName: string, options: ResolvePolicyOptions): Policy {
  if (isPolicy(input)) return input;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new PolicyOptionError(`mcp-gate: option "${optionName}" must be a compiled Policy or a policy document`);
  }
  return compilePolicy(input, { onMissingCapabilities: options.onMissingCapabilities });
}

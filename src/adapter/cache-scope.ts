import type { PrimitiveMetadata } from '../core/primitive-metadata.js';
import { isCallerPath } from '../core/policy/compile-policy.js';
import type { Policy } from '../core/policy/types.js';

/**
 * Whether what a policy lets through among these primitives can differ between callers. A
 * result that does must never be marked for shared (`public`) caching: a shared cache would
 * hand one caller's filtered list, or a read it may not make, to another. Policies with custom
 * operators count as caller-dependent, since those may read anything.
 */
export function dependsOnCaller(policy: Policy, primitives: readonly PrimitiveMetadata[]): boolean {
  if (!policy.cacheable) return true;
  if (!policy.callerSpecific) return false;
  return policy.readsFor(primitives).some(isCallerPath);
}

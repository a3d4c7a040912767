import type { GateFlagOptions } from '../adapter/flag-resolution.js';
import type { Policy } from '../core/policy/types.js';
import { InputError } from './io.js';
import type { PolicyFlagSource } from './policy-flag-source.js';

/**
 * serve's and proxy's gate option `flags`: the flags a policy reads (`{"var": "flags.<key>"}`)
 * are resolved through the flagd provider that serves `--policy-flag` (flag file or sync
 * service alike); given whenever that provider runs, so a later revision may read flags too.
 * A policy file that reads flags has nothing to resolve them with: an error naming the flags
 * (a gate never serves a flag-reading policy on defaults it did not choose).
 */
export function flagsOptionFor(policy: Policy, policyName: string, source: PolicyFlagSource | undefined): GateFlagOptions | undefined {
  if (source !== undefined) return { client: source.client };
  const keys = Object.keys(policy.flags ?? {});
  if (keys.length === 0) return undefined;
  throw new InputError(
    `${policyName}: the policy reads ${keys.length === 1 ? 'flag' : 'flags'} ${keys.map((key) => JSON.stringify(key)).join(', ')}, and nothing resolves them: serve it with --policy-flag KEY and a flagd source (--flagd-file PATH or --flagd-host HOST), whose flags it then reads`,
  );
}

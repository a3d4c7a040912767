import type { GateFlagOptions } from '../adapter/flag-resolution.js';
import type { Policy } from '../core/policy/types.js';
import { InputError } from './io.js';
import type { FlagdConnection } from './policy-flag-source.js';

/**
 * serve's and proxy's gate option `flags`: the flags a policy reads (`{"var": "flags.<key>"}`)
 * are resolved through the flagd provider that runs for the policy option — the one serving
 * `--policy-flag`, or the one a `--policy` file's `--flagd-file`/`--flagd-host` started (flag
 * file or sync service alike); given whenever a provider runs, so a later revision may read
 * flags too. A policy that reads flags with no provider has nothing to resolve them with: an
 * error naming the flags (a gate never serves a flag-reading policy on defaults it did not choose).
 */
export function flagsOptionFor(policy: Policy, policyName: string, flagd: FlagdConnection | undefined): GateFlagOptions | undefined {
  if (flagd !== undefined) return { client: flagd.client };
  const keys = Object.keys(policy.flags ?? {});
  if (keys.length === 0) return undefined;
  throw new InputError(unresolvedFlagsMessage(policyName, keys));
}

/** Names the flags and the options that resolve them. */
export function unresolvedFlagsMessage(policyName: string, keys: readonly string[]): string {
  return `${policyName}: the policy reads ${keys.length === 1 ? 'flag' : 'flags'} ${keys.map((key) => JSON.stringify(key)).join(', ')}, and nothing resolves them: add the flagd source that holds them (--flagd-file PATH or --flagd-host HOST), or read the policy from a flag of that source with --policy-flag KEY`;
}

// `serve --policy-flag KEY` and `proxy --policy-flag KEY`: the policy document held by an
// OpenFeature object flag, served by flagd's in-process provider from a flag file (offline: the
// file flagd's file sync reads) or from flagd's sync service; and `--policy FILE` with a flagd
// source, whose provider resolves the flags the policy reads. The OpenFeature packages are
// optional peers, imported by flagd-provider.ts only when a flagd source is given (only `import
// type` here), so `serve --help` and a plain `--policy FILE` load none of them.
import type { Client } from '@openfeature/server-sdk';
import type { PolicyDocument } from '../core/policy/schema.js';
import type { Policy } from '../core/policy/types.js';
import type { PolicyFlagError } from '../openfeature/policy-flag-error.js';
import type { PolicyTarget } from '../openfeature/watch-policy-flag.js';
import { writeLines } from './command.js';
import { describeFollowing, startFlagd } from './flagd-provider.js';
import { formatIssues, InputError, UsageError, type CliIo } from './io.js';
import { loadPolicy } from './policy-file.js';
import { unresolvedFlagsMessage } from './policy-flags-option.js';
import { flagdSourceOption, type FlagdSource, type PolicySource } from './policy-source-options.js';

/** What a policy flag is applied to: serve's SDK gate or the proxy's wire gate. */
export interface PolicyHolder {
  readonly policy: Policy;
  setPolicy(next: Policy | PolicyDocument): Promise<void>;
  /** Stops following the flag source's changes (the gates' `close`). */
  close?(): void;
}

/** A line of the decision log for a flag that was not applied (docs/cli.md, "Policy flags"). */
export interface PolicyFlagEvent {
  readonly time: string;
  readonly event: 'policy_flag_error';
  readonly flag: string;
  /** The revision still in force. */
  readonly policyRevision: string;
  /** PolicyFlagError's `problem`, or `flagd` for what the provider reported (a flag file it could not parse, a lost connection). */
  readonly problem: PolicyFlagError['problem'] | 'flagd';
  readonly message: string;
}

export interface FollowOptions {
  /** A stderr line, prefixed with the command. */
  readonly note: (text: string) => void;
  /** Receives one JSON line (newline included) per error, for the decision log. */
  readonly writeEvent?: ((line: string) => void) | undefined;
}

/** flagd's in-process provider, running on one source: its OpenFeature client resolves the flags a policy reads (`flags.<key>`). */
export interface FlagdConnection {
  /** `flagd file flags.json`, `flagd sync 127.0.0.1:8015`. */
  readonly description: string;
  readonly client: Client;
  /** Stops following and closes the provider (its file watcher or gRPC stream). */
  close(): Promise<void>;
}

/** The policy read at startup from its flag, the provider that serves it, and how to follow it. */
export interface PolicyFlagSource extends FlagdConnection {
  readonly policy: Policy;
  /** `flag mcp-policy`, as messages name it. */
  readonly name: string;
  /** Applies every later valid revision of the flag to `gate`; reports the others. Once. */
  follow(gate: PolicyHolder, options: FollowOptions): void;
}

/** The provider started for the flags of a policy file (--policy FILE with a flagd source). */
export interface PolicyFlagsSource extends FlagdConnection {
  /** From now on, says on stderr what the provider reports (a flag file it cannot parse, a lost connection), and where the flags come from. Once. */
  follow(options: Pick<FollowOptions, 'note'>): void;
}

/** What the policy option loaded: the policy, and the flagd provider that runs for it, if any (at most one of `flag` and `flagsSource`). */
export interface LoadedPolicyOption {
  readonly policy: Policy;
  readonly name: string;
  /** --policy-flag: the flag to follow, whose provider also resolves the flags the policy reads. */
  readonly flag: PolicyFlagSource | undefined;
  /** --policy FILE with a flagd source: the provider that resolves the flags the file reads. */
  readonly flagsSource: PolicyFlagsSource | undefined;
}

/** The provider that resolves the flags of the loaded policy, if one runs. */
export function flagdOf(loaded: Pick<LoadedPolicyOption, 'flag' | 'flagsSource'>): FlagdConnection | undefined {
  return loaded.flag ?? loaded.flagsSource;
}

/**
 * Loads the policy from --policy FILE or --policy-flag KEY; failures are InputErrors naming the file
 * or the flag. A policy file's flags need a flagd source, and a flagd source needs a policy that
 * reads flags: checked before the provider starts.
 */
export async function loadPolicyOption(io: CliIo, source: PolicySource, command: string): Promise<LoadedPolicyOption> {
  if (source.kind === 'flag') {
    const flag = await startPolicyFlag(io, source.flagKey, source.flagd, command);
    return { policy: flag.policy, name: flag.name, flag, flagsSource: undefined };
  }
  const { policy, name } = await loadPolicy(io, source.path);
  const keys = Object.keys(policy.flags ?? {});
  if (source.flagd === undefined) {
    if (keys.length > 0) throw new InputError(unresolvedFlagsMessage(name, keys));
    return { policy, name, flag: undefined, flagsSource: undefined };
  }
  const flagdSource = source.flagd;
  const option = flagdSourceOption(flagdSource);
  if (keys.length === 0) {
    throw new UsageError(
      `${command}: ${option} resolves the flags a policy reads ({"var": "flags.<key>"}), and ${name} reads none; to read the policy itself from a flag, pass --policy-flag KEY instead of --policy`,
    );
  }
  const flagd = await startFlagd(io, flagdSource, command, `${command} ${option}`);
  return {
    policy,
    name,
    flag: undefined,
    flagsSource: {
      description: flagd.description,
      client: flagd.client,
      follow({ note }) {
        flagd.relay((message) => note(`flagd: ${message}`));
        note(`resolving the flags of ${name} through ${describeFollowing(flagd.description, flagdSource)}`);
      },
      close: flagd.close,
    },
  };
}

/**
 * For `loadAll(...).catch(closeOnFailure(load))`: when another input failed, the flag source that
 * did start is closed before the error goes on, so a failed startup leaves no provider running.
 */
export function closeOnFailure(load: Promise<LoadedPolicyOption>): (error: unknown) => Promise<never> {
  return async (error) => {
    await load.then(
      (loaded) => flagdOf(loaded)?.close(),
      () => undefined,
    );
    throw error;
  };
}

/**
 * Starts flagd's in-process provider on `flagd`, waits for its first flags and reads the policy
 * flag once. Throws an InputError naming the file or the sync address, and the flag, when any
 * step fails; the provider is closed then.
 */
export async function startPolicyFlag(io: CliIo, flagKey: string, flagd: FlagdSource, command: string): Promise<PolicyFlagSource> {
  const name = `flag ${flagKey}`;
  const started = await startFlagd(io, flagd, command, `${command} --policy-flag`);
  const { client, description, origin, openfeature } = started;
  let policy: Policy;
  try {
    policy = await openfeature.readPolicyFlag(client, flagKey, { compile: { source: name } });
  } catch (error) {
    await started.close();
    if (!(error instanceof openfeature.PolicyFlagError)) throw error;
    throw new InputError(formatIssues(`${origin}: ${name}`, error.issues));
  }

  let watch: { close(): Promise<void> } | undefined;
  let closed = false;
  return {
    policy,
    name,
    description,
    client,
    follow(gate, { note, writeEvent }) {
      if (watch !== undefined || closed) throw new Error('a policy flag source is followed once, before it is closed');
      // One report per problem: the provider re-reads on every change of any flag in the source.
      let lastReport: string | undefined;
      const report = (problem: PolicyFlagEvent['problem'], headline: string, details: readonly string[]) => {
        const text = [headline, ...details].join('\n');
        if (text === lastReport) return;
        lastReport = text;
        const revision = gate.policy.revision;
        note(`${headline}; still serving revision ${revision}`);
        for (const line of details) writeLines(io.stderr, line);
        const event: PolicyFlagEvent = {
          time: new Date().toISOString(),
          event: 'policy_flag_error',
          flag: flagKey,
          policyRevision: revision,
          problem,
          message: [headline, ...details].join('; '),
        };
        writeEvent?.(`${JSON.stringify(event)}\n`);
      };
      started.relay((message) => report('flagd', `flagd: ${message}`, []));
      // Every valid read is handed over, also when another flag of the source changed: the same
      // revision changes nothing and says nothing.
      const target: PolicyTarget = {
        async setPolicy(next) {
          const before = gate.policy.revision;
          if ('revision' in next && next.revision === before) return;
          await gate.setPolicy(next);
          lastReport = undefined;
          note(`${name} changed: revision ${before} → ${gate.policy.revision}`);
        },
      };
      watch = openfeature.watchPolicyFlag(client, flagKey, target, {
        compile: { source: name },
        onError: (error) =>
          report(
            error.problem,
            `${name} not applied (${error.problem})`,
            error.issues.map((issue) => (issue.path === '' ? `${name}: ${issue.message}` : `${name}: ${issue.path}: ${issue.message}`)),
          ),
      });
      note(`following ${name} from ${describeFollowing(description, flagd)}`);
    },
    async close() {
      closed = true;
      await watch?.close();
      await started.close();
    },
  };
}

// The options that choose where serve's and proxy's policy comes from: `--policy FILE` (with a
// flagd source when it reads flags), or `--policy-flag KEY` with one flagd source. Reading them
// loads nothing; policy-flag-source.ts starts the provider they describe.
import type { OptionSpecs, ParsedArgs } from './args.js';
import { UsageError } from './io.js';
import { readWholeNumber } from './serving-options.js';

/** The port of flagd's sync service (flagd.sync.v1), the in-process provider's default. */
export const defaultFlagdSyncPort = 8015;
/** Node's fs.watchFile default, which flagd's file sync polls the flag file at. */
export const defaultFlagdPollIntervalMs = 5007;

export const policyFlagOptionSpecs = {
  'policy-flag': {
    type: 'string',
    value: 'KEY',
    description: 'read the policy from this OpenFeature object flag through flagd in-process (instead of --policy), and follow its changes',
  },
  'flagd-file': {
    type: 'string',
    value: 'PATH',
    description: 'the flagd flag file (offline, as flagd file sync reads it), followed as it changes: for --policy-flag, or for the flags a --policy file reads',
  },
  'flagd-poll-interval': {
    type: 'string',
    value: 'MS',
    description: `with --flagd-file: how often the file is checked for changes, in milliseconds (default ${defaultFlagdPollIntervalMs})`,
  },
  'flagd-host': {
    type: 'string',
    value: 'HOST',
    description: "flagd's sync service (flagd.sync.v1), for production: for --policy-flag, or for the flags a --policy file reads",
  },
  'flagd-port': { type: 'string', value: 'N', description: `with --flagd-host: its port (default ${defaultFlagdSyncPort})` },
  'flagd-selector': { type: 'string', value: 'SELECTOR', description: "with --flagd-host: which of flagd's flag sources to sync" },
  'flagd-tls': { type: 'boolean', description: 'with --flagd-host: connect over TLS' },
  'flagd-cert': { type: 'string', value: 'PATH', description: 'with --flagd-tls: the CA certificate (PEM) to trust instead of the system roots' },
} as const satisfies OptionSpecs;

/** Where flagd's in-process provider reads flags from. */
export type FlagdSource =
  | { readonly kind: 'file'; readonly path: string; readonly pollIntervalMs: number }
  | {
      readonly kind: 'sync';
      readonly host: string;
      readonly port: number;
      readonly selector: string | undefined;
      readonly tls: boolean;
      readonly certPath: string | undefined;
    };

/**
 * Where the policy comes from: `--policy FILE`, with the flagd source that resolves the flags it
 * reads if it reads any, or `--policy-flag KEY` with its flagd source (which resolves them too).
 */
export type PolicySource =
  { readonly kind: 'file'; readonly path: string; readonly flagd: FlagdSource | undefined } | { readonly kind: 'flag'; readonly flagKey: string; readonly flagd: FlagdSource };

/** The second form of serve's and proxy's usage: the same options, the policy from a flag. */
export function policyFlagUsage(command: string): string {
  return `\n       ${command} --policy-flag KEY (--flagd-file PATH [--flagd-poll-interval MS] | --flagd-host HOST [--flagd-port N] [--flagd-selector SELECTOR] [--flagd-tls [--flagd-cert PATH]]) [options as above, but --watch]`;
}

/** How the first form names the flagd options, for a policy file that reads flags. */
export const flagdSourceUsage =
  ' [--flagd-file PATH [--flagd-poll-interval MS] | --flagd-host HOST [--flagd-port N] [--flagd-selector SELECTOR] [--flagd-tls [--flagd-cert PATH]]]';

/** The option that names a flagd source, as messages name it. */
export function flagdSourceOption(flagd: FlagdSource): string {
  return flagd.kind === 'file' ? '--flagd-file' : '--flagd-host';
}

const fileOnly = ['flagd-poll-interval'] as const;
const syncOnly = ['flagd-port', 'flagd-selector', 'flagd-tls', 'flagd-cert'] as const;

/**
 * Reads --policy / --policy-flag and the flagd options: exactly one policy source, and only the
 * options it uses. A flagd source is required with --policy-flag and optional with --policy
 * (whether the file reads flags is known once it is loaded: see loadPolicyOption).
 */
export function readPolicySource(args: ParsedArgs, command: string): PolicySource {
  const policyPath = args.string('policy');
  const flagKey = args.string('policy-flag');
  if (policyPath !== undefined && flagKey !== undefined) throw new UsageError(`${command}: pass either --policy FILE or --policy-flag KEY, not both`);
  if (flagKey === undefined) {
    if (policyPath === undefined) throw new UsageError(`${command}: missing --policy FILE; see "${command} --help"`);
    return { kind: 'file', path: policyPath, flagd: readFlagdSource(args, command, 'a policy file') };
  }
  if (flagKey.trim() === '') throw new UsageError(`${command}: --policy-flag needs a flag key`);
  if (args.flag('watch')) throw new UsageError(`${command}: --watch follows a policy file; --policy-flag follows its flag without it`);
  const flagd = readFlagdSource(args, command, '--policy-flag');
  if (flagd === undefined) {
    throw new UsageError(`${command}: --policy-flag needs one flag source: --flagd-file PATH (offline) or --flagd-host HOST (flagd's sync service)`);
  }
  return { kind: 'flag', flagKey, flagd };
}

/** --flagd-file or --flagd-host with the options of that source; undefined when neither is given (and none of their options). */
function readFlagdSource(args: ParsedArgs, command: string, forWhat: string): FlagdSource | undefined {
  const given = (name: string) => (name === 'flagd-tls' ? args.flag(name) : args.string(name) !== undefined);
  const file = args.string('flagd-file');
  const host = args.string('flagd-host');
  if (file !== undefined && host !== undefined) {
    throw new UsageError(`${command}: ${forWhat} needs one flag source: --flagd-file PATH (offline) or --flagd-host HOST (flagd's sync service)`);
  }
  if (file === undefined && host === undefined) {
    const stray = [...fileOnly, ...syncOnly].find(given);
    if (stray !== undefined) throw new UsageError(`${command}: --${stray} is for ${fileOnly.some((name) => name === stray) ? '--flagd-file PATH' : '--flagd-host HOST'}`);
    return undefined;
  }
  if (file !== undefined) {
    const stray = syncOnly.find(given);
    if (stray !== undefined) throw new UsageError(`${command}: --${stray} is for --flagd-host; --flagd-file reads a file`);
    return {
      kind: 'file',
      path: file,
      pollIntervalMs: readWholeNumber(args, 'flagd-poll-interval', command, { minimum: 10, maximum: 3_600_000, fallback: defaultFlagdPollIntervalMs }),
    };
  }
  const stray = fileOnly.find(given);
  if (stray !== undefined) throw new UsageError(`${command}: --${stray} is for --flagd-file; the sync service pushes changes`);
  if (host!.trim() === '') throw new UsageError(`${command}: --flagd-host needs a host name or address`);
  const tls = args.flag('flagd-tls');
  const certPath = args.string('flagd-cert');
  if (certPath !== undefined && !tls) throw new UsageError(`${command}: --flagd-cert is the CA for --flagd-tls; pass --flagd-tls too`);
  return {
    kind: 'sync',
    host: host!,
    port: readWholeNumber(args, 'flagd-port', command, { minimum: 1, maximum: 65_535, fallback: defaultFlagdSyncPort }),
    selector: args.string('flagd-selector'),
    tls,
    certPath,
  };
}

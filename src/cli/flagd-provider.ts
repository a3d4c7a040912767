// flagd's in-process provider on one source (a flag file, or flagd's sync service), started for
// --policy-flag or for the flags a --policy file reads: its startup, what its logger says, and
// its teardown. The OpenFeature packages are optional peers, imported only here, in startFlagd.
import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '@openfeature/server-sdk';
import { displayPath, InputError, readJson, readText, resolvePath, type CliIo } from './io.js';
import { importPeers } from './peers.js';
import type { FlagdConnection } from './policy-flag-source.js';
import type { FlagdSource } from './policy-source-options.js';

/** How long startup waits for the provider to connect and load its first flags. */
const startupTimeoutMs = 15_000;

let providerDomains = 0;

/** A started provider, before anyone follows it. */
export interface StartedFlagd extends FlagdConnection {
  /** Starts error lines, compiler style (`flags.json: flag mcp-policy: rules[0]: …`). */
  readonly origin: string;
  readonly openfeature: typeof import('../openfeature/index.js');
  /** From now on, hands what the provider reports (a flag file it cannot parse, a lost connection) to `to`; closing stops it. */
  relay(to: (message: string) => void): void;
}

/**
 * Starts flagd's in-process provider on `flagd` and waits for its first flags. Throws an
 * InputError naming the file or the sync address when it cannot; the provider is closed then.
 * `needer` names what needs the OpenFeature packages when they are missing.
 */
export async function startFlagd(io: CliIo, flagd: FlagdSource, command: string, needer: string): Promise<StartedFlagd> {
  // `origin` starts error lines, compiler style (`flags.json: flag mcp-policy: rules[0]: …`).
  let origin: string;
  let description: string;
  let absolutePath: string | undefined;
  if (flagd.kind === 'file') {
    absolutePath = resolvePath(io, flagd.path);
    origin = displayPath(io, absolutePath);
    description = `flagd file ${origin}`;
    // The provider reads the file itself; reading it first names the file and the JSON error's line.
    await readJson(io, absolutePath);
  } else {
    description = `flagd sync ${flagd.host}:${flagd.port}`;
    origin = description;
    // The provider falls back to the system roots when the file is missing: say so instead.
    if (flagd.certPath !== undefined) await readText(io, resolvePath(io, flagd.certPath));
  }
  const [sdk, flagdProvider, openfeature] = await importPeers(needer, [
    ['@openfeature/server-sdk', () => import('@openfeature/server-sdk')],
    ['@openfeature/flagd-provider', () => import('@openfeature/flagd-provider')],
    // mcp-gate/openfeature (for --policy-flag) itself imports @openfeature/server-sdk, checked above.
    ['@openfeature/server-sdk', () => import('../openfeature/index.js')],
  ] as const);

  // The provider tells of a flag file it cannot parse, and of a lost connection, only through its
  // logger: those lines are relayed once following starts, and the last error explains a failed start.
  let relay: ((message: string) => void) | undefined;
  let lastError: string | undefined;
  let lastErrorProblems: string | undefined;
  // flagd-core says why a configuration failed its schema only at debug level, in the same turn
  // of the event loop as the error that follows; kept until the next turn, to name the field.
  let schemaProblems: string | undefined;
  const logger: Logger = {
    error: (...parts: unknown[]) => {
      lastError = parts.map(String).join(' ');
      lastErrorProblems = schemaProblems;
      relay?.(schemaProblems === undefined ? lastError : `${lastError} (${schemaProblems})`);
    },
    warn: (...parts: unknown[]) => relay?.(`warning: ${parts.map(String).join(' ')}`),
    info: () => undefined,
    debug: (...parts: unknown[]) => {
      const problems = readSchemaProblems(parts.map(String).join(' '));
      if (problems === undefined) return;
      schemaProblems = problems;
      setImmediate(() => (schemaProblems = undefined));
    },
  };

  // flagd's file sync follows the file with fs.watchFile at Node's default 5007 ms, which it does
  // not let us set. Node keeps one stat watcher per path, polling at the interval of the first
  // watchFile call on it: watching the path first (without keeping the process alive) sets the
  // interval the provider's own listener runs at. test/cli/policy-flag.test.ts checks that the
  // provider's listener joins this watcher.
  const ignoreChange = () => undefined;
  if (flagd.kind === 'file') watchFile(absolutePath!, { interval: flagd.pollIntervalMs, persistent: false }, ignoreChange);
  const provider = new flagdProvider.FlagdProvider(
    flagd.kind === 'file'
      ? { resolverType: 'in-process', offlineFlagSourcePath: absolutePath!, socketPath: undefined }
      : {
          resolverType: 'in-process',
          host: flagd.host,
          port: flagd.port,
          tls: flagd.tls,
          certPath: flagd.certPath === undefined ? undefined : resolvePath(io, flagd.certPath),
          selector: flagd.selector ?? '',
          // Set explicitly: the provider's FLAGD_OFFLINE_FLAG_SOURCE_PATH / FLAGD_SOCKET_PATH would
          // otherwise replace the source these options name.
          offlineFlagSourcePath: undefined,
          socketPath: undefined,
        },
    logger,
  );
  let closed = false;
  const closeProvider = async () => {
    if (closed) return;
    closed = true;
    relay = undefined;
    stopReconnecting(provider);
    await provider.onClose();
    if (absolutePath !== undefined) unwatchFile(absolutePath, ignoreChange);
  };

  // A domain of our own: a --server module's OpenFeature providers (default or named) stay its own.
  const domain = `mcp-gate/policy-flag/${++providerDomains}`;
  try {
    // Not serve/lifetime.ts's withTimeout: that module imports the MCP SDK, which `serve --help` must not load.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no flags within ${startupTimeoutMs / 1000} s`)), startupTimeoutMs);
    });
    await Promise.race([sdk.OpenFeature.setProviderAndWait(domain, provider), timeout]).finally(() => clearTimeout(timer));
  } catch (error) {
    const message = (error instanceof Error && error.message !== '' ? error.message : undefined) ?? lastError ?? 'the provider did not start';
    const reason = lastErrorProblems === undefined ? message : `${message} (${lastErrorProblems})`;
    await closeProvider();
    throw new InputError(
      flagd.kind === 'file'
        ? `${origin}: flagd cannot load this flag file: ${reason}`
        : `${command}: cannot sync flags from flagd at ${flagd.host}:${flagd.port}${flagd.selector === undefined ? '' : ` (selector "${flagd.selector}")`}: ${reason}`,
    );
  }
  return {
    description,
    origin,
    openfeature,
    client: sdk.OpenFeature.getClient(domain),
    relay(to) {
      if (!closed) relay = to;
    },
    close: closeProvider,
  };
}

/** The source, as the line that says where flags are followed from names it. */
export function describeFollowing(description: string, flagd: FlagdSource): string {
  if (flagd.kind === 'file') return `${description} (checked every ${flagd.pollIntervalMs} ms)`;
  const details = [flagd.selector === undefined ? undefined : `selector "${flagd.selector}"`, flagd.tls ? 'TLS' : undefined].filter((detail) => detail !== undefined);
  return details.length === 0 ? description : `${description} (${details.join(', ')})`;
}

const schemaProblemsPrefix = 'invalid flagd flag configuration: ';

/** `/flags/x: must have required property 'state'; …` from flagd-core's debug line (ajv's errors as JSON), at most three. */
function readSchemaProblems(message: string): string | undefined {
  if (!message.startsWith(schemaProblemsPrefix)) return undefined;
  try {
    const errors = JSON.parse(message.slice(schemaProblemsPrefix.length)) as { instancePath?: unknown; message?: unknown }[];
    const lines = [...new Set(errors.map((error) => `${String(error.instancePath) || '/'}: ${String(error.message)}`))];
    return lines.length === 0 ? undefined : lines.slice(0, 3).join('; ') + (lines.length > 3 ? '; …' : '');
  } catch {
    return undefined;
  }
}

/**
 * flagd-provider 0.16's gRPC sync schedules a reconnect before it rejects a failed first
 * connection, and onClose() does not cancel it: the reconnects go on for ever, and a `serve` that
 * could not reach flagd never exits. Its fetcher's `listen` (private) is what each reconnect runs;
 * after close it does nothing. Absent (a file source, another version), nothing changes.
 */
function stopReconnecting(provider: object): void {
  const fetcher = (provider as { _service?: { _dataFetcher?: { listen?: unknown } } })._service?._dataFetcher;
  if (fetcher !== undefined && typeof fetcher.listen === 'function') fetcher.listen = () => undefined;
}

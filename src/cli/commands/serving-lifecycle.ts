// What `serve` and `proxy` run around their gate, the same for both: the bearer verifier, the
// decision log, telemetry, following the policy (--watch, --policy-flag), and the teardown in
// order when the signal fires. Each command says only how it builds its gate and how it serves.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { BearerVerifier } from '../../serve/bearer-auth.js';
import { createDecisionLogger, isCredentialHeader } from '../../serve/decision-log.js';
import { deferToIdle } from '../../serve/deferred-queue.js';
import { watchFile } from '../../serve/file-watcher.js';
import type { Serving } from '../../serve/lifetime.js';
import { loadBearerVerifier, type BearerSettings } from '../bearer-options.js';
import { writeLines } from '../command.js';
import { displayPath, exitCodes, InputError, resolvePath, type CliIo } from '../io.js';
import type { ServeTelemetry } from '../otel-runtime.js';
import { loadPolicy } from '../policy-file.js';
import { flagdOf, type LoadedPolicyOption, type PolicyHolder } from '../policy-flag-source.js';

/** The options of serve and proxy that this module acts on. */
export interface ServingSettings {
  readonly watch: boolean;
  readonly decisionLog: string | undefined;
  readonly logHeaders: readonly string[];
  readonly logCredentialHeaders: boolean;
  readonly otel: boolean;
  readonly bearer: BearerSettings | undefined;
}

/** What a command's gate and server are started with. */
export interface ServingStart {
  /** A stderr line, prefixed with the command. */
  readonly note: (text: string) => void;
  readonly signal: AbortSignal;
  /** --jwks, loaded. */
  readonly bearer: BearerVerifier | undefined;
  /** The gate's decision listener: telemetry (which passes events on to the log), else the decision log. */
  readonly onDecision: ServeTelemetry['onDecision'] | undefined;
}

/**
 * Starts what serve and proxy share, lets `start` build the gate and begin serving, follows the
 * policy, and waits for the signal; then stops in order (the policy's watchers, the server,
 * telemetry, the log). The flagd provider (--policy-flag, or a policy file's flags) is closed
 * whatever happens, also when serving never started.
 */
export async function runServing(
  io: CliIo,
  command: string,
  settings: ServingSettings,
  loaded: Pick<LoadedPolicyOption, 'name' | 'flag' | 'flagsSource'>,
  start: (serving: ServingStart) => Promise<{ readonly gate: PolicyHolder; readonly serving: Serving }>,
): Promise<number> {
  const { name: policyName, flag: policyFlag, flagsSource } = loaded;
  const flagd = flagdOf(loaded);
  const note = (text: string) => writeLines(io.stderr, `${command}: ${text}`);
  try {
    const signal = io.signal;
    if (signal === undefined) throw new Error(`${command} needs io.signal to know when to stop`);
    const bearer = settings.bearer && (await loadBearerVerifier(io, command, settings.bearer));
    const decisionLog = settings.decisionLog === undefined ? undefined : await openDecisionLog(io, settings.decisionLog, note);
    noteCredentialHeaders(settings, note);
    // Off the response path: see deferToIdle (a hidden tool is logged, an unknown name is not).
    const logDecision =
      decisionLog &&
      deferToIdle(createDecisionLogger({ write: decisionLog.write, logHeaders: settings.logHeaders, logCredentialHeaders: settings.logCredentialHeaders }), (error) =>
        note(`decision log: ${error instanceof Error ? error.message : String(error)}`),
      );
    let telemetry: ServeTelemetry | undefined;
    try {
      // Loaded only with --otel: the OTel packages are optional peers (src/cli/otel-runtime.ts).
      if (settings.otel) telemetry = await (await import('../otel-runtime.js')).startServeTelemetry(command, process.env, logDecision);
      const { gate, serving } = await start({ note, signal, bearer, onDecision: telemetry?.onDecision ?? logDecision });
      const watcher = settings.watch ? watchPolicy(io, policyName, gate, note) : undefined;
      policyFlag?.follow(gate, { note, writeEvent: decisionLog?.write });
      flagsSource?.follow({ note });
      if (decisionLog) note(`decision log: ${decisionLog.label}`);
      if (telemetry) note(`telemetry: ${telemetry.description}`);
      await serving.done;
      watcher?.close();
      gate.close?.();
      await flagd?.close();
      await serving.close();
      note('stopped');
    } finally {
      await telemetry?.shutdown().catch((error: unknown) => note(`telemetry: ${error instanceof Error ? error.message : String(error)}`));
      logDecision?.flush();
      await decisionLog?.close();
    }
  } finally {
    await flagd?.close();
  }
  return exitCodes.ok;
}

/**
 * Credential headers allow-listed by --log-headers are logged as "[redacted]": says so, so nobody
 * wonders where the value went; with --log-credential-headers, warns that the log now holds secrets.
 */
export function noteCredentialHeaders(settings: Pick<ServingSettings, 'logHeaders' | 'logCredentialHeaders'>, note: (text: string) => void): void {
  const credentials = settings.logHeaders.filter(isCredentialHeader);
  if (credentials.length === 0) {
    if (settings.logCredentialHeaders) note('--log-credential-headers: no credential header is in --log-headers, so none is logged');
    return;
  }
  const names = credentials.join(', ');
  if (settings.logCredentialHeaders) {
    note(
      `WARNING: --log-credential-headers writes the values of ${names} (bearer tokens, cookies, keys) to the decision log in clear text; whoever can read the log can use them`,
    );
  } else {
    note(`--log-headers ${names}: credential headers are logged as "[redacted]"; --log-credential-headers would write their values`);
  }
}

/**
 * Reloads on change: the new file is read and compiled in full before `setPolicy` swaps it in,
 * so a request sees either the old policy or the new one. An unreadable or invalid file changes
 * nothing but a message; a change that leaves the revision as it was (whitespace) is ignored.
 * The text last rejected is remembered, so a later event on the unchanged file (a touch, a save
 * without edits, an editor's backup write) does not print the same problems again.
 */
export function watchPolicy(io: CliIo, policyName: string, gate: Pick<PolicyHolder, 'policy' | 'setPolicy'>, note: (text: string) => void) {
  const absolutePath = resolvePath(io, policyName);
  let rejectedText: string | undefined;
  const watcher = watchFile(
    absolutePath,
    async () => {
      const before = gate.policy.revision;
      const text = await io.readFile(absolutePath).catch(() => undefined);
      if (text !== undefined && text === rejectedText) return;
      let loaded;
      try {
        loaded = await loadPolicy(io, absolutePath);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        rejectedText = text;
        note(`${policyName} changed but is not valid; still serving revision ${before}`);
        writeLines(io.stderr, error.message);
        return;
      }
      rejectedText = undefined;
      if (loaded.policy.revision === before) return;
      await gate.setPolicy(loaded.policy);
      note(`${policyName} reloaded: revision ${before} → ${loaded.policy.revision}`);
    },
    { onError: (error) => note(`watching ${policyName}: ${error instanceof Error ? error.message : String(error)}`) },
  );
  note(`watching ${policyName} for changes`);
  return watcher;
}

export interface OpenLog {
  readonly label: string;
  write(line: string): void;
  close(): Promise<void>;
}

export async function openDecisionLog(io: CliIo, target: string, note: (text: string) => void): Promise<OpenLog> {
  if (target === '-') return { label: 'stdout', write: io.stdout, close: async () => undefined };
  const absolutePath = resolvePath(io, target);
  const name = displayPath(io, absolutePath);
  const stream: WriteStream = createWriteStream(absolutePath, { flags: 'a' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error) => reject(new InputError(`${name}: cannot open the decision log: ${error.message}`)));
  });
  let failed = false;
  stream.on('error', (error) => {
    if (!failed) note(`decision log ${name}: ${error.message}`);
    failed = true;
  });
  return {
    label: name,
    write: (line) => void stream.write(line),
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}

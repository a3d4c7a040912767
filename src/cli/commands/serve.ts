import { createWriteStream, type WriteStream } from 'node:fs';
import type { Policy } from '../../core/policy/types.js';
import type { Gate, MissingCapabilities } from '../../sdk/index.js';
import { createDecisionLogger, isCredentialHeader } from '../../serve/decision-log.js';
import { deferToIdle } from '../../serve/deferred-queue.js';
import { watchFile } from '../../serve/file-watcher.js';
import { defaultMaxSessions, defaultSessionIdleTimeoutMs } from '../../serve/session-limits.js';
import type { ParsedArgs } from '../args.js';
import { bearerOptionSpecs, loadBearerVerifier, readBearerSettings, type BearerSettings } from '../bearer-options.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { displayPath, exitCodes, InputError, loadAll, resolvePath, UsageError, type CliIo } from '../io.js';
import { serverOptionSpecs } from '../manifest.js';
import { importPeer } from '../peers.js';
import type { ServeTelemetry } from '../otel-runtime.js';
import { loadPolicy } from '../policy-file.js';
import { closeOnFailure, loadPolicyOption, type PolicyFlagSource } from '../policy-flag-source.js';
import { flagsOptionFor } from '../policy-flags-option.js';
import { policyFlagOptionSpecs, policyFlagUsage, readPolicySource, type PolicySource } from '../policy-source-options.js';
import { loadServerModule, readServerManifest, type ServerModule } from '../server-module.js';

// The v1 SDK (an optional peer) is loaded in execute, through serve-runtime.ts: `serve --help`
// and the command list need only this module, and a missing SDK is one line naming the package.

const command = 'mcp-gate serve';
const defaultPort = 3000;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve a gated MCP server over Streamable HTTP on 127.0.0.1, or over stdio',
  usage:
    'mcp-gate serve --policy FILE [--server MODULE [--export NAME]] [--port N | --stdio] [--stateless] [--max-sessions N] [--session-idle-timeout SECONDS] [--on-missing-capabilities deny|allow] [--watch] [--decision-log FILE|-] [--log-headers NAME,…] [--log-credential-headers] [--otel] [--jwks FILE|URL --issuer ISS --audience AUD]' +
    policyFlagUsage(command),
  description: [
    `Serves the server a module builds (without --server, the demo server) behind the policy: over`,
    `Streamable HTTP at http://127.0.0.1:PORT/mcp, every path below /mcp being an endpoint too`,
    `(/mcp/admin), or over stdin/stdout with --stdio. Messages go to stderr. Stops on SIGINT/SIGTERM.`,
    `--watch reloads the policy when its file changes; an invalid file is rejected, its problems`,
    `printed, and the running policy keeps serving. --policy-flag reads the policy from an OpenFeature`,
    `object flag through flagd in-process (a flag file, or flagd's sync service) and follows it the same`,
    `way (docs/openfeature.md). --decision-log writes one JSON line per decision.`,
    `--otel exports decisions as OpenTelemetry spans and metrics over OTLP/HTTP (OTEL_EXPORTER_OTLP_*).`,
  ].join('\n'),
  options: {
    policy: { type: 'string', value: 'FILE', description: 'the policy document (or --policy-flag)' },
    ...policyFlagOptionSpecs,
    ...serverOptionSpecs,
    port: { type: 'string', value: 'N', description: `TCP port on 127.0.0.1 (default ${defaultPort}; 0 picks a free one)` },
    stdio: { type: 'boolean', description: 'speak MCP over stdin/stdout instead of HTTP' },
    stateless: { type: 'boolean', description: 'HTTP without sessions: one server per request' },
    'max-sessions': {
      type: 'string',
      value: 'N',
      description: `HTTP sessions open at most (default ${defaultMaxSessions}); a new one closes the least recently used, whose client gets 404 and initializes again`,
    },
    'session-idle-timeout': {
      type: 'string',
      value: 'SECONDS',
      description: `close a session idle this long (default ${defaultSessionIdleTimeoutMs / 1000}; 0 never, --max-sessions still bounds them)`,
    },
    'on-missing-capabilities': {
      type: 'string',
      value: 'deny|allow',
      description: 'for clients that declared no capabilities (stateless requests): deny (default) hides capability-gated primitives, allow shows them',
    },
    watch: { type: 'boolean', description: 'reload the policy when its file changes' },
    'decision-log': { type: 'string', value: 'FILE|-', description: 'append one JSON line per decision to FILE, or stdout for -' },
    'log-headers': {
      type: 'string',
      multiple: true,
      value: 'NAME,…',
      description: 'headers whose values the decision log may keep (repeatable; none by default); credential headers (authorization, cookie, x-api-key, …) as "[redacted]"',
    },
    'log-credential-headers': {
      type: 'boolean',
      description: 'DANGER: write the values of credential headers named by --log-headers (bearer tokens, cookies) to the decision log',
    },
    otel: {
      type: 'boolean',
      description:
        'export decisions as OpenTelemetry spans and metrics over OTLP/HTTP, configured by OTEL_EXPORTER_OTLP_* and OTEL_SERVICE_NAME (needs the OTel SDK packages; docs/otel.md)',
    },
    ...bearerOptionSpecs,
  },
  async execute(args, io) {
    const settings = readSettings(args);
    const runtime = await importPeer('@modelcontextprotocol/sdk', command, () => import('./serve-runtime.js'));
    const policyLoad = loadPolicyOption(io, settings.policySource, command);
    const [{ policy, name: policyName, flag: policyFlag }, module] = await loadAll(
      policyLoad,
      settings.serverPath === undefined ? Promise.resolve(runtime.demoModule) : loadServerModule(io, settings.serverPath, settings.exportName),
    ).catch(closeOnFailure(policyLoad));
    try {
      return await serveWith(io, settings, runtime, policyFlag, { policy, policyName, module });
    } finally {
      // Also when serving never started (a broken factory, a log that cannot be opened).
      await policyFlag?.close();
    }
  },
};

async function serveWith(
  io: CliIo,
  settings: ServeSettings,
  runtime: typeof import('./serve-runtime.js'),
  policyFlag: PolicyFlagSource | undefined,
  { policy, policyName, module }: { policy: Policy; policyName: string; module: ServerModule },
): Promise<number> {
  // Build one server now, so a broken factory or invalid metadata fails here rather than per session.
  const { primitives, warnings } = readServerManifest(module);
  const note = (text: string) => writeLines(io.stderr, `${command}: ${text}`);
  for (const warning of warnings) writeLines(io.stderr, warning);
  const signal = io.signal;
  if (signal === undefined) throw new Error('serve needs io.signal to know when to stop');

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
    const gate = runtime.createGate({
      policy,
      flags: flagsOptionFor(policy, policyName, policyFlag),
      metadata: module.metadata,
      onMissingCapabilities: settings.onMissingCapabilities,
      onError: (error) => note(`error: ${error.message}`),
      onDecision: telemetry?.onDecision ?? logDecision,
    });
    const source = module === runtime.demoModule ? 'the demo server' : `${module.name} ${module.factoryName}()`;
    note(`policy ${policyName} (revision ${policy.revision}) in front of ${source}: ${countOf(primitives.length, 'primitive')}`);
    const stop = settings.stdio ? await runtime.serveStdio(io, module, gate, signal, note) : await runtime.serveHttp(module, gate, { ...settings, bearer }, signal, note);
    const watcher = settings.watch ? watchPolicy(io, policyName, gate, note) : undefined;
    policyFlag?.follow(gate, { note, writeEvent: decisionLog?.write });
    if (decisionLog) note(`decision log: ${decisionLog.label}`);
    if (telemetry) note(`telemetry: ${telemetry.description}`);
    await stop.done;
    watcher?.close();
    await policyFlag?.close();
    await stop.close();
    note('stopped');
  } finally {
    await telemetry?.shutdown().catch((error: unknown) => note(`telemetry: ${error instanceof Error ? error.message : String(error)}`));
    logDecision?.flush();
    await decisionLog?.close();
  }
  return exitCodes.ok;
}

export interface ServeSettings {
  readonly policySource: PolicySource;
  readonly serverPath: string | undefined;
  readonly exportName: string | undefined;
  readonly port: number;
  readonly stdio: boolean;
  readonly stateless: boolean;
  readonly onMissingCapabilities: MissingCapabilities;
  readonly watch: boolean;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  readonly decisionLog: string | undefined;
  readonly logHeaders: readonly string[];
  readonly logCredentialHeaders: boolean;
  readonly otel: boolean;
  readonly bearer: BearerSettings | undefined;
}

function readSettings(args: ParsedArgs): ServeSettings {
  if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
  const policySource = readPolicySource(args, command);
  const stdio = args.flag('stdio');
  const portText = args.string('port');
  if (stdio && portText !== undefined) throw new UsageError(`${command}: pass either --port or --stdio, not both`);
  if (stdio && args.flag('stateless')) throw new UsageError(`${command}: --stateless is for HTTP; stdio is one session`);
  if (portText !== undefined && !/^\d{1,5}$/.test(portText)) throw new UsageError(`${command}: --port must be a number from 0 to 65535, got "${portText}"`);
  const port = portText === undefined ? defaultPort : Number(portText);
  if (port > 65535) throw new UsageError(`${command}: --port must be a number from 0 to 65535, got "${portText}"`);
  if (args.string('export') !== undefined && args.string('server') === undefined) {
    throw new UsageError(`${command}: --export names an export of --server MODULE; pass --server too`);
  }
  const onMissingCapabilities = args.string('on-missing-capabilities') ?? 'deny';
  if (onMissingCapabilities !== 'deny' && onMissingCapabilities !== 'allow') {
    throw new UsageError(`${command}: --on-missing-capabilities must be deny or allow, got "${onMissingCapabilities}"`);
  }
  const decisionLog = args.string('decision-log');
  if (stdio && decisionLog === '-') throw new UsageError(`${command}: --decision-log - would write into the MCP stream on stdout; give a file with --stdio`);
  const logHeaders = args
    .strings('log-headers')
    .flatMap((list) => list.split(','))
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (logHeaders.length > 0 && decisionLog === undefined) throw new UsageError(`${command}: --log-headers needs --decision-log`);
  const logCredentialHeaders = args.flag('log-credential-headers');
  if (logCredentialHeaders && logHeaders.length === 0) throw new UsageError(`${command}: --log-credential-headers needs --log-headers naming the credential headers to log`);
  const stateless = args.flag('stateless');
  for (const name of ['max-sessions', 'session-idle-timeout']) {
    if (args.string(name) === undefined) continue;
    if (stdio) throw new UsageError(`${command}: --${name} is for HTTP sessions; stdio is one session`);
    if (stateless) throw new UsageError(`${command}: --${name} is for HTTP sessions; --stateless has none`);
  }
  const maxSessions = readInteger(args, 'max-sessions', { minimum: 1, maximum: 1_000_000, fallback: defaultMaxSessions });
  const idleSeconds = readInteger(args, 'session-idle-timeout', { minimum: 0, maximum: 86_400, fallback: defaultSessionIdleTimeoutMs / 1000 });
  return {
    policySource,
    serverPath: args.string('server'),
    exportName: args.string('export'),
    port,
    stdio,
    stateless,
    onMissingCapabilities,
    watch: args.flag('watch'),
    maxSessions,
    sessionIdleTimeoutMs: idleSeconds * 1000,
    decisionLog,
    logHeaders,
    logCredentialHeaders,
    otel: args.flag('otel'),
    bearer: readBearerSettings(args, command, { stdio }),
  };
}

/** A whole number in decimal digits from `minimum` to `maximum`, or `fallback` when the option is absent. */
function readInteger(args: ParsedArgs, name: string, { minimum, maximum, fallback }: { minimum: number; maximum: number; fallback: number }): number {
  const text = args.string(name);
  if (text === undefined) return fallback;
  const value = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= minimum && value <= maximum)) throw new UsageError(`${command}: --${name} must be a whole number from ${minimum} to ${maximum}, got "${text}"`);
  return value;
}

/** `1 primitive`, `3 primitives`. */
function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Credential headers allow-listed by --log-headers are logged as "[redacted]": says so, so nobody
 * wonders where the value went; with --log-credential-headers, warns that the log now holds secrets.
 */
export function noteCredentialHeaders(settings: Pick<ServeSettings, 'logHeaders' | 'logCredentialHeaders'>, note: (text: string) => void): void {
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
export function watchPolicy(io: CliIo, policyName: string, gate: Pick<Gate, 'policy' | 'setPolicy'>, note: (text: string) => void) {
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

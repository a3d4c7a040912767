import type { MissingCapabilities } from '../../sdk/index.js';
import { defaultMaxSessions, defaultSessionIdleTimeoutMs } from '../../serve/session-limits.js';
import type { ParsedArgs } from '../args.js';
import { bearerOptionSpecs, readBearerSettings, type BearerSettings } from '../bearer-options.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { loadAll, UsageError, type CliIo } from '../io.js';
import { serverOptionSpecs } from '../manifest.js';
import { importPeer } from '../peers.js';
import { closeOnFailure, flagdOf, loadPolicyOption, type LoadedPolicyOption } from '../policy-flag-source.js';
import { flagsOptionFor } from '../policy-flags-option.js';
import { flagdSourceUsage, policyFlagOptionSpecs, policyFlagUsage, readPolicySource, type PolicySource } from '../policy-source-options.js';
import { readDecisionLogOptions, readPort, readWholeNumber } from '../serving-options.js';
import { runServing } from './serving-lifecycle.js';
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
    flagdSourceUsage +
    policyFlagUsage(command),
  description: [
    `Serves the server a module builds (without --server, the demo server) behind the policy: over`,
    `Streamable HTTP at http://127.0.0.1:PORT/mcp, every path below /mcp being an endpoint too`,
    `(/mcp/admin), or over stdin/stdout with --stdio. Messages go to stderr. Stops on SIGINT/SIGTERM.`,
    `--watch reloads the policy when its file changes; an invalid file is rejected, its problems`,
    `printed, and the running policy keeps serving. --policy-flag reads the policy from an OpenFeature`,
    `object flag through flagd in-process (a flag file, or flagd's sync service) and follows it the same`,
    `way (docs/openfeature.md). A --policy file that reads feature flags ({"var": "flags.KEY"}) resolves`,
    `them through flagd in-process too: give the flag file or sync service with --flagd-file or --flagd-host.`,
    `--decision-log writes one JSON line per decision.`,
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
    const [loaded, module] = await loadAll(
      policyLoad,
      settings.serverPath === undefined ? Promise.resolve(runtime.demoModule) : loadServerModule(io, settings.serverPath, settings.exportName),
    ).catch(closeOnFailure(policyLoad));
    try {
      return await serveWith(io, settings, runtime, loaded, module);
    } finally {
      // Also when serving never started (a broken factory, a log that cannot be opened).
      await flagdOf(loaded)?.close();
    }
  },
};

async function serveWith(io: CliIo, settings: ServeSettings, runtime: typeof import('./serve-runtime.js'), loaded: LoadedPolicyOption, module: ServerModule): Promise<number> {
  const { policy, name: policyName } = loaded;
  // Build one server now, so a broken factory or invalid metadata fails here rather than per session.
  const { primitives, warnings } = readServerManifest(module);
  for (const warning of warnings) writeLines(io.stderr, warning);
  return runServing(io, command, settings, loaded, async ({ note, signal, bearer, onDecision }) => {
    const gate = runtime.createGate({
      policy,
      flags: flagsOptionFor(policy, policyName, flagdOf(loaded)),
      metadata: module.metadata,
      onMissingCapabilities: settings.onMissingCapabilities,
      onError: (error) => note(`error: ${error.message}`),
      onDecision,
    });
    const source = module === runtime.demoModule ? 'the demo server' : `${module.name} ${module.factoryName}()`;
    note(`policy ${policyName} (revision ${policy.revision}) in front of ${source}: ${countOf(primitives.length, 'primitive')}`);
    const serving = settings.stdio ? await runtime.serveStdio(io, module, gate, signal, note) : await runtime.serveHttp(module, gate, { ...settings, bearer }, signal, note);
    return { gate, serving };
  });
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
  const port = readPort(args, command, { stdio, fallback: defaultPort });
  if (stdio && args.flag('stateless')) throw new UsageError(`${command}: --stateless is for HTTP; stdio is one session`);
  if (args.string('export') !== undefined && args.string('server') === undefined) {
    throw new UsageError(`${command}: --export names an export of --server MODULE; pass --server too`);
  }
  const onMissingCapabilities = args.string('on-missing-capabilities') ?? 'deny';
  if (onMissingCapabilities !== 'deny' && onMissingCapabilities !== 'allow') {
    throw new UsageError(`${command}: --on-missing-capabilities must be deny or allow, got "${onMissingCapabilities}"`);
  }
  const { decisionLog, logHeaders } = readDecisionLogOptions(args, command, { stdio });
  const logCredentialHeaders = args.flag('log-credential-headers');
  if (logCredentialHeaders && logHeaders.length === 0) throw new UsageError(`${command}: --log-credential-headers needs --log-headers naming the credential headers to log`);
  const stateless = args.flag('stateless');
  for (const name of ['max-sessions', 'session-idle-timeout']) {
    if (args.string(name) === undefined) continue;
    if (stdio) throw new UsageError(`${command}: --${name} is for HTTP sessions; stdio is one session`);
    if (stateless) throw new UsageError(`${command}: --${name} is for HTTP sessions; --stateless has none`);
  }
  const maxSessions = readWholeNumber(args, 'max-sessions', command, { minimum: 1, maximum: 1_000_000, fallback: defaultMaxSessions });
  const idleSeconds = readWholeNumber(args, 'session-idle-timeout', command, { minimum: 0, maximum: 86_400, fallback: defaultSessionIdleTimeoutMs / 1000 });
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

/** `1 primitive`, `3 primitives`. */
function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

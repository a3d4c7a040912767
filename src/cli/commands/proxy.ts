import type { UpstreamSpec } from '../../proxy/upstream-command.js';
import { eraMismatchMessage } from '../../proxy/upstream-era.js';
import { upstreamSessionHeaders } from '../../proxy/upstream-headers.js';
import { defaultMaxSessions, defaultSessionIdleTimeoutMs } from '../../serve/session-limits.js';
import type { ParsedArgs } from '../args.js';
import { bearerOptionSpecs, readBearerSettings, type BearerSettings } from '../bearer-options.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { displayPath, InputError, loadAll, resolvePath, UsageError, type CliIo } from '../io.js';
import { importPeer } from '../peers.js';
import { readUpstreamHeaderSettings, upstreamHeaderOptionSpecs, type UpstreamHeaderSettings } from '../upstream-header-options.js';
import { closeOnFailure, flagdOf, loadPolicyOption } from '../policy-flag-source.js';
import { flagsOptionFor } from '../policy-flags-option.js';
import { flagdSourceUsage, policyFlagOptionSpecs, policyFlagUsage, readPolicySource, type PolicySource } from '../policy-source-options.js';
import { describeUpstream, loadOverlay, readUpstreamSpec, upstreamOptionSpecs } from '../upstream-source.js';
import { readDecisionLogOptions, readPort, readWholeNumber } from '../serving-options.js';
import { runServing } from './serving-lifecycle.js';

// The v1 SDK (an optional peer) is loaded in execute, through src/proxy/proxy-runtime.ts, as
// serve does: `proxy --help` and the command list need only this module.

const command = 'mcp-gate proxy';
const defaultPort = 3000;
/** How long the startup check waits for the upstream to initialize and list. */
const startupTimeoutMs = 30_000;

export const proxyCommand: Command = {
  name: 'proxy',
  summary: 'gate any MCP server (a command over stdio, or a URL) behind a policy, over Streamable HTTP on 127.0.0.1 or stdio',
  usage:
    'mcp-gate proxy --policy FILE [--overlay FILE] (--upstream-cmd "CMD ARGS" | --upstream-url URL) [--upstream-transport streamable-http|sse] [--port N] [--host 127.0.0.1] [--stdio] [--watch] [--decision-log FILE|-] [--log-headers NAME,…] [--max-sessions N] [--session-idle-timeout SECONDS] [--page-size N] [--jwks FILE|URL --issuer ISS --audience AUD] [--upstream-header "NAME: VALUE"]… [--forward-header NAME]… [--upstream-ping SECONDS] [--otel]' +
    flagdSourceUsage +
    policyFlagUsage(command),
  description: [
    `Puts the policy in front of an MCP server written in any language: spawned from --upstream-cmd`,
    `(spoken to over stdio) or reached at --upstream-url (Streamable HTTP). Serves Streamable HTTP at`,
    `http://127.0.0.1:PORT/mcp, every path below /mcp being an endpoint too (/mcp/admin), or stdio`,
    `with --stdio. Each client session gets its own upstream session, initialized with the client's`,
    `name and capabilities (spoken as 2026-07-28 stateless requests when the --upstream-url speaks`,
    `only that); a 2026-07-28 stateless request is served too (gated on its own _meta envelope and`,
    `headers), over HTTP or --stdio, when the upstream (URL or command) speaks 2026-07-28.`,
    `Primitives are annotated by`,
    `their own _meta["mcp-gate"], else by the --overlay file. Hidden primitives are answered as the`,
    `upstream answers a name it does not have, and nothing naming one is sent upstream. A policy`,
    `that reads feature flags resolves them through flagd in-process (--flagd-file or --flagd-host;`,
    `docs/openfeature.md). Messages go to stderr. See docs/proxy.md.`,
  ].join('\n'),
  options: {
    policy: { type: 'string', value: 'FILE', description: 'the policy document (or --policy-flag)' },
    ...policyFlagOptionSpecs,
    ...upstreamOptionSpecs,
    'upstream-transport': {
      type: 'string',
      value: 'streamable-http|sse',
      description: "how to speak to --upstream-url: Streamable HTTP (default), or the legacy HTTP+SSE transport (the URL is the server's event stream, often /sse)",
    },
    port: { type: 'string', value: 'N', description: `TCP port (default ${defaultPort}; 0 picks a free one)` },
    host: { type: 'string', value: '127.0.0.1', description: 'address to listen on; only 127.0.0.1 for now' },
    stdio: { type: 'boolean', description: 'speak MCP over stdin/stdout instead of HTTP (one session)' },
    watch: { type: 'boolean', description: 'reload the policy when its file changes' },
    'decision-log': { type: 'string', value: 'FILE|-', description: 'append one JSON line per decision to FILE, or stdout for -' },
    'log-headers': { type: 'string', multiple: true, value: 'NAME,…', description: 'headers whose values the decision log may keep (credential headers as "[redacted]")' },
    'max-sessions': { type: 'string', value: 'N', description: `HTTP sessions open at most (default ${defaultMaxSessions}), each with its own upstream session` },
    'session-idle-timeout': { type: 'string', value: 'SECONDS', description: `close a session idle this long (default ${defaultSessionIdleTimeoutMs / 1000}; 0 never)` },
    'page-size': { type: 'string', value: 'N', description: "list page size with the proxy's own cursors (default: one page)" },
    ...bearerOptionSpecs,
    ...upstreamHeaderOptionSpecs,
    'upstream-ping': {
      type: 'string',
      value: 'SECONDS',
      description: 'while requests wait on an upstream session, ping it this often; one unanswered within 5 s ends that upstream session (default: off)',
    },
    otel: {
      type: 'boolean',
      description:
        'export decisions as OpenTelemetry spans and metrics over OTLP/HTTP, configured by OTEL_EXPORTER_OTLP_* and OTEL_SERVICE_NAME (needs the OTel SDK packages; docs/otel.md)',
    },
  },
  async execute(args, io) {
    const settings = readSettings(args, io.env);
    const runtime = await importPeer('@modelcontextprotocol/sdk', command, () => import('../../proxy/proxy-runtime.js'));
    const transports = await importPeer('@modelcontextprotocol/sdk', command, () => import('../../proxy/upstream-transport.js'));
    const policyLoad = loadPolicyOption(io, settings.policySource, command);
    const [loaded, overlay] = await loadAll(policyLoad, loadOverlay(io, settings.overlayPath)).catch(closeOnFailure(policyLoad));
    const { policy, name: policyName } = loaded;
    return runServing(io, command, settings, loaded, async ({ note, signal, bearer, onDecision }) => {
      const onError = (error: unknown) => note(`error: ${error instanceof Error ? error.message : String(error)}`);
      const flags = flagsOptionFor(policy, policyName, flagdOf(loaded));
      const wire = runtime.createWireGate({
        policy,
        ...(flags === undefined ? {} : { flags }),
        overlay,
        pageSize: settings.pageSize,
        onError,
        onDecision,
      });
      const upstreamName = describeUpstream(settings.upstream);
      const openUpstream = (downstream?: { readonly headers: Readonly<Record<string, string | string[] | undefined>> }) =>
        transports.openUpstreamTransport(settings.upstream, {
          cwd: io.cwd,
          onStderrLine: (line) => note(`upstream: ${line}`),
          headers: upstreamSessionHeaders(settings.upstreamHeaders, settings.forwardHeaders, downstream?.headers ?? {}),
        });
      // The upstream may speak 2026-07-28 too, or only: stateless requests are then served (src/proxy/stateless-serving.ts),
      // over a spawned upstream's stdio through one process of its own (src/proxy/stdio-stateless-upstream.ts); in front
      // of an upstream that speaks only 2026-07-28 (a URL or a command), 2025-era sessions (HTTP or --stdio) are bridged to it (src/proxy/bridge-upstream.ts).
      const { upstream, upstreamHeaders, forwardHeaders } = settings;
      const statelessUpstream =
        upstream.kind === 'command'
          ? new runtime.SpawnedStatelessUpstream(() => openUpstream(), { onError })
          : upstream.transport !== 'sse'
            ? {
                url: upstream.url,
                headers: (downstream: Readonly<Record<string, string | string[] | undefined>>) => upstreamSessionHeaders(upstreamHeaders, forwardHeaders, downstream),
              }
            : undefined;
      let summary;
      try {
        summary = await runtime.inspectUpstream(wire, openUpstream(), startupTimeoutMs, statelessUpstream);
      } catch (error) {
        const detail = eraMismatchMessage(error) ?? legacySseHint(settings.upstream, error) ?? (error instanceof Error ? error.message : String(error));
        throw new InputError(`${command}: cannot reach the upstream ${upstreamName}: ${detail}`);
      }
      const overlayName = settings.overlayPath === undefined ? undefined : displayPath(io, resolvePath(io, settings.overlayPath));
      for (const key of summary.unmatchedOverlayKeys) writeLines(io.stderr, `${overlayName}: metadata.${key}: warning: matches no primitive of the upstream`);
      const { counts } = summary;
      note(
        `policy ${policyName} (revision ${policy.revision}) in front of ${summary.serverName ?? upstreamName}: ${counts.tool} tools, ${counts.prompt} prompts, ${counts.resource} resources, ${counts.resourceTemplate} resource templates`,
      );
      if (settings.stdio) {
        const stdio = io.stdio;
        if (stdio === undefined) throw new Error('proxy --stdio needs io.stdio');
        const serving = await runtime.serveProxyStdio(wire, openUpstream, stdio, signal, onError, { ...settings, statelessUpstream, statelessOnly: summary.statelessOnly });
        const bridged = summary.statelessOnly === true;
        note(
          bridged
            ? 'speaking MCP on stdin/stdout (the upstream speaks only 2026-07-28: the session is bridged to it with stateless requests; docs/proxy.md#protocol-eras)'
            : 'speaking MCP on stdin/stdout',
        );
        if (serving.servesStateless)
          note('serving 2026-07-28 clients too, each message gated on its own envelope (the upstream speaks 2026-07-28; docs/proxy.md#2026-07-28-over-stdio)');
        return { gate: wire, serving };
      }
      let serving;
      try {
        serving = await runtime.serveProxyHttp(wire, openUpstream, { ...settings, bearer, statelessUpstream, statelessOnly: summary.statelessOnly }, signal, onError);
      } catch (error) {
        if ((error as { code?: unknown }).code === 'EADDRINUSE') {
          throw new InputError(`${command}: port ${settings.port} on 127.0.0.1 is in use; pick another with --port N (0 picks a free one)`);
        }
        throw error;
      }
      note(
        `listening on ${serving.host.url.href} (a session per client, each with its own upstream session, at most ${settings.maxSessions}; paths below ${serving.host.url.pathname} are endpoints too)`,
      );
      if (serving.servesStateless)
        note(
          !summary.statelessOnly
            ? 'serving 2026-07-28 stateless requests too (the upstream speaks 2026-07-28; docs/proxy.md#protocol-eras)'
            : 'serving 2026-07-28 stateless requests too, and bridging 2025-era sessions to the upstream with stateless requests (it speaks only 2026-07-28; docs/proxy.md#protocol-eras)',
        );
      if (settings.bearer)
        note(`verifying bearer tokens of ${settings.bearer.issuer} for ${settings.bearer.audience} (--jwks); the client's Authorization never reaches the upstream`);
      return { gate: wire, serving };
    });
  },
};

export interface ProxySettings extends UpstreamHeaderSettings {
  readonly policySource: PolicySource;
  readonly overlayPath: string | undefined;
  readonly upstream: UpstreamSpec;
  readonly port: number;
  readonly stdio: boolean;
  readonly watch: boolean;
  readonly decisionLog: string | undefined;
  readonly logHeaders: readonly string[];
  /** Always false: the proxy has no --log-credential-headers. */
  readonly logCredentialHeaders: false;
  readonly maxSessions: number;
  readonly sessionIdleTimeoutMs: number;
  readonly pageSize: number | undefined;
  readonly bearer: BearerSettings | undefined;
  readonly upstreamPingMs: number | undefined;
  readonly otel: boolean;
}

function readSettings(args: ParsedArgs, env: CliIo['env']): ProxySettings {
  if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
  const policySource = readPolicySource(args, command);
  const named = readUpstreamSpec(args, command);
  if (named === undefined) throw new UsageError(`${command}: pass one upstream: --upstream-cmd "CMD ARGS" or --upstream-url URL`);
  const upstream = withHttpTransport(named, args.string('upstream-transport'));
  const stdio = args.flag('stdio');
  const port = readPort(args, command, { stdio, fallback: defaultPort });
  const host = args.string('host');
  if (host !== undefined && host !== '127.0.0.1')
    throw new UsageError(`${command}: --host ${host}: only 127.0.0.1 is supported for now (the Host check admits loopback names only; see docs/proxy.md)`);
  const { decisionLog, logHeaders } = readDecisionLogOptions(args, command, { stdio });
  for (const name of ['max-sessions', 'session-idle-timeout']) {
    if (stdio && args.string(name) !== undefined) throw new UsageError(`${command}: --${name} is for HTTP sessions; stdio is one session`);
  }
  const pageSizeText = args.string('page-size');
  return {
    policySource,
    overlayPath: args.string('overlay'),
    upstream,
    port,
    stdio,
    watch: args.flag('watch'),
    decisionLog,
    logHeaders,
    logCredentialHeaders: false,
    maxSessions: readWholeNumber(args, 'max-sessions', command, { minimum: 1, maximum: 1_000_000, fallback: defaultMaxSessions }),
    sessionIdleTimeoutMs: readWholeNumber(args, 'session-idle-timeout', command, { minimum: 0, maximum: 86_400, fallback: defaultSessionIdleTimeoutMs / 1000 }) * 1000,
    pageSize: pageSizeText === undefined ? undefined : readWholeNumber(args, 'page-size', command, { minimum: 1, maximum: 100_000, fallback: 0 }),
    bearer: readBearerSettings(args, command, { stdio }),
    ...readUpstreamHeaderSettings(args, command, { upstream, stdio, env }),
    upstreamPingMs:
      args.string('upstream-ping') === undefined ? undefined : readWholeNumber(args, 'upstream-ping', command, { minimum: 1, maximum: 86_400, fallback: 0 }) * 1000,
    otel: args.flag('otel'),
  };
}

function withHttpTransport(upstream: UpstreamSpec, transport: string | undefined): UpstreamSpec {
  if (transport === undefined) return upstream;
  if (transport !== 'streamable-http' && transport !== 'sse') throw new UsageError(`${command}: --upstream-transport must be streamable-http or sse, got "${transport}"`);
  if (upstream.kind !== 'url') throw new UsageError(`${command}: --upstream-transport is for --upstream-url; --upstream-cmd speaks stdio`);
  return { ...upstream, transport };
}

/**
 * A Streamable HTTP upstream that answered the first POST with 404 or 405 may be a legacy
 * HTTP+SSE server (which takes POSTs only at the endpoint its event stream names): say so.
 */
function legacySseHint(upstream: UpstreamSpec, error: unknown): string | undefined {
  if (upstream.kind !== 'url' || upstream.transport === 'sse' || !(error instanceof Error)) return undefined;
  // The SDK's StreamableHTTPError carries the HTTP status as its `code`.
  const status = (error as { code?: unknown }).code;
  if (status !== 404 && status !== 405) return undefined;
  return `${error.message} (a server on the legacy HTTP+SSE transport takes --upstream-transport sse, with the URL of its event stream)`;
}

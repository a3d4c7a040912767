import type { RequestContextInput } from '../../core/context.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import {
  chooseClient,
  combineContext,
  contextOptionSpecs,
  contextOptionsUsage,
  defaultEndpoint,
  describeAuth,
  readContextOptions,
  type ClientChoice,
} from '../context-options.js';
import { decideAll, type PrimitiveDecision } from '../decisions.js';
import { exitCodes, loadAll, UsageError } from '../io.js';
import { loadPrimitives, primitiveSourceOptionSpecs } from '../manifest.js';
import { upstreamSourceUsage } from '../upstream-source.js';
import { loadPolicy } from '../policy-file.js';
import { describeProfile } from '../../profiles/client-profiles.js';
import { formatTable } from '../table.js';

const command = 'mcp-gate explain';

export const explainCommand: Command = {
  name: 'explain',
  summary: 'show every primitive for one request: visible or hidden, and why',
  usage: `mcp-gate explain --policy FILE (--manifest FILE | --server MODULE | ${upstreamSourceUsage}) [--overlay FILE] [--client NAME | --capabilities JSON] ${contextOptionsUsage} [--endpoint PATH] [--json]`,
  description: [
    'Evaluates the policy for one request against every primitive of a manifest and prints a table:',
    'kind, name, version, whether the client sees it, and what decided (a rule, the default, or an',
    'unmet requirement). Without --client, --capabilities or --context the client declares no capabilities.',
    'Each primitive is evaluated for its list request (tools/list, prompts/list, …) unless --context sets',
    'request.method. The other options override the fields of --context they name.',
    'A policy that reads feature flags is decided on the values --context gives in "flags"',
    '({"flags": {"new-search": true}}); a flag not given holds the default the policy declares.',
  ].join('\n'),
  options: {
    policy: { type: 'string', value: 'FILE', description: 'the policy document (required)' },
    manifest: { type: 'string', value: 'FILE', description: 'the primitives, as JSON {"primitives": […]} (or --server)' },
    ...primitiveSourceOptionSpecs,
    client: { type: 'string', value: 'NAME', description: 'a real client profile, e.g. cursor, claude-code (see "mcp-gate profiles")' },
    capabilities: { type: 'string', value: 'JSON', description: `the client's capabilities, e.g. '{"sampling": {}}'` },
    ...contextOptionSpecs,
    endpoint: { type: 'string', value: 'PATH', description: `URL path the request arrives on (default ${defaultEndpoint})` },
    json: { type: 'boolean', description: 'print the decisions as JSON' },
  },
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
    const policyPath = args.string('policy');
    if (policyPath === undefined) throw new UsageError(`${command}: missing --policy FILE; see "${command} --help"`);
    const options = readContextOptions(args, command);
    const choice = chooseClient(args, command, options);
    const input = combineContext(options, choice.input);
    const headers = { ...options.contextHeaders, ...options.headers };
    const endpoint = args.string('endpoint') ?? input.request?.endpoint ?? defaultEndpoint;
    const method = input.request?.method;
    const [primitives, { policy, name }] = await loadAll(loadPrimitives(io, args, command), loadPolicy(io, policyPath));
    const decisions = decideAll(policy, primitives, { client: input, headers, endpoint });

    if (args.flag('json')) {
      const report = {
        policy: { file: name, revision: policy.revision },
        request: { endpoint, method, headers, protocolVersion: input.request?.protocolVersion },
        client: input.client,
        auth: describeAuth(input.auth).length > 0 ? input.auth : undefined,
        flags: flagValues(policy.flags, input.flags),
        primitives: decisions.map(toJson),
      };
      writeLines(io.stdout, JSON.stringify(report, null, 2));
      return exitCodes.ok;
    }
    const headerList = Object.entries(headers).map(([header, value]) => `${header}: ${value}`);
    const auth = describeAuth(input.auth);
    const visible = decisions.filter((entry) => entry.served).length;
    writeLines(
      io.stdout,
      [
        `Policy:   ${name} (revision ${policy.revision})`,
        `Client:   ${describeClient(choice, input.client)}`,
        ...(auth.length > 0 ? [`Auth:     ${auth.join('; ')}`] : []),
        ...describeFlags(policy.flags, input.flags),
        `Request:  endpoint ${endpoint === '' ? '"" (stdio)' : endpoint}${method === undefined ? '' : `; method ${method}`}; headers: ${headerList.length > 0 ? headerList.join(', ') : 'none'}`,
        '',
        formatTable(['KIND', 'NAME', 'VERSION', 'VISIBLE', 'DECIDED BY', 'WHY'], decisions.map(toRow)),
        '',
        `${visible} of ${decisions.length === 1 ? '1 primitive' : `${decisions.length} primitives`} visible.`,
      ].join('\n'),
    );
    return exitCodes.ok;
  },
};

/** The value each flag the policy reads has for this request: given in `--context`, else its declared default. */
function flagValues(declared: Readonly<Record<string, unknown>> | undefined, given: RequestContextInput['flags']): Record<string, unknown> | undefined {
  const keys = Object.keys(declared ?? {});
  if (keys.length === 0) return undefined;
  return Object.fromEntries(keys.map((key) => [key, given !== undefined && Object.hasOwn(given, key) ? given[key] : declared![key]]));
}

/** `Flags:    new-search=true, beta-tier="off" (default)`; nothing for a policy that reads no flag. */
function describeFlags(declared: Readonly<Record<string, unknown>> | undefined, given: RequestContextInput['flags']): string[] {
  const values = flagValues(declared, given);
  if (values === undefined) return [];
  const parts = Object.entries(values).map(([key, value]) => `${key}=${JSON.stringify(value)}${given !== undefined && Object.hasOwn(given, key) ? '' : ' (default)'}`);
  return [`Flags:    ${parts.join(', ')}`];
}

/** `cursor-vscode (Cursor); capabilities: roots`, `my-agent (profile cursor-vscode); version 1.2.0; capabilities: …`. */
function describeClient(choice: ClientChoice, client: RequestContextInput['client']): string {
  const name = client?.name;
  const { profile } = choice;
  const who = profile ? (name === profile.id ? describeProfile(profile) : `${name} (profile ${profile.id})`) : (name ?? choice.label);
  const version = client?.version === undefined ? '' : `; version ${client.version}`;
  const capabilities = client?.capabilities === undefined ? 'undeclared' : Object.keys(client.capabilities).join(', ') || 'none';
  return `${who}${version}; capabilities: ${capabilities}`;
}

function toRow({ metadata, decision, served, shadowedBy }: PrimitiveDecision): string[] {
  const decidedBy = decision.ruleId === undefined ? decision.reason : `${decision.reason} ${decision.ruleId}`;
  const visible = served ? 'yes' : decision.allowed ? 'shadowed' : 'no';
  // DECIDED BY already names the rule; WHY keeps just its description.
  const description = decision.reason === 'rule' ? decision.message.replace(/^(allowed|denied) by rule "[^"]*"(: )?/, '') : '';
  const message = description || decision.message;
  const why = decision.allowed && !served ? `${message}; version ${shadowedBy} is served instead` : message;
  return [metadata.kind, metadata.name, metadata.version ?? '', visible, decidedBy, why];
}

function toJson({ metadata, decision, served, shadowedBy }: PrimitiveDecision): Record<string, unknown> {
  return {
    kind: metadata.kind,
    name: metadata.name,
    version: metadata.version,
    uri: metadata.uri,
    uriTemplate: metadata.uriTemplate,
    visible: served,
    allowed: decision.allowed,
    reason: decision.reason,
    ruleId: decision.ruleId,
    message: decision.message,
    shadowedBy,
  };
}

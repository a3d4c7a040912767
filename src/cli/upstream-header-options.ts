// --upstream-header and --forward-header of `proxy`: what its requests to an HTTP upstream carry.
import { parseForwardHeader, parseUpstreamHeader, type HeaderSetting } from '../proxy/upstream-headers.js';
import type { UpstreamSpec } from '../proxy/upstream-command.js';
import type { ParsedArgs } from './args.js';
import { UsageError } from './io.js';

export const upstreamHeaderOptionSpecs = {
  'upstream-header': {
    type: 'string',
    multiple: true,
    value: '"NAME: VALUE"',
    description:
      "set this header on every request to the --upstream-url (its credentials: the client's Authorization is never passed on); ${VAR} in it is the environment variable VAR, which keeps a secret off the command line; repeatable",
  },
  'forward-header': {
    type: 'string',
    multiple: true,
    value: 'NAME',
    description: "pass this header of each client session's initialize on to its upstream session (never Authorization or Cookie); repeatable",
  },
} as const;

/** The environment `${VAR}` in a header value reads (the process's, or a test's). */
export type Environment = Readonly<Record<string, string | undefined>>;

// `${VAR}` as mcp-remote and MCP client configurations write it: a client config's `args` reach the
// proxy without a shell, and a secret left in them shows in `ps`, where `${VAR}` shows only its name.
const variableReference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface UpstreamHeaderSettings {
  readonly upstreamHeaders: readonly HeaderSetting[];
  readonly forwardHeaders: readonly string[];
}

/**
 * Every `--upstream-header "NAME: VALUE"`, parsed, with each `${VAR}` replaced by the environment
 * variable VAR; a malformed or repeated header, or an unset variable, is a usage error.
 */
export function readUpstreamHeaders(args: ParsedArgs, command: string, env: Environment = process.env): HeaderSetting[] {
  const upstreamHeaders: HeaderSetting[] = [];
  for (const given of args.strings('upstream-header')) {
    const text = given.replace(variableReference, (_, name: string) => {
      const value = env[name];
      if (value === undefined) throw new UsageError(`${command}: --upstream-header${headerNameOf(given)}: the environment variable ${name} is not set`);
      return value;
    });
    const parsed = parseUpstreamHeader(text);
    if (typeof parsed === 'string') throw new UsageError(`${command}: --upstream-header ${parsed}`);
    if (upstreamHeaders.some((header) => header.name === parsed.name)) throw new UsageError(`${command}: --upstream-header ${parsed.name} is given twice`);
    upstreamHeaders.push(parsed);
  }
  return upstreamHeaders;
}

export function readUpstreamHeaderSettings(
  args: ParsedArgs,
  command: string,
  context: { readonly upstream: UpstreamSpec; readonly stdio: boolean; readonly env?: Environment },
): UpstreamHeaderSettings {
  const upstreamHeaders = readUpstreamHeaders(args, command, context.env);
  const forwardHeaders: string[] = [];
  for (const text of args.strings('forward-header')) {
    const parsed = parseForwardHeader(text);
    if (typeof parsed !== 'string') throw new UsageError(`${command}: --forward-header ${parsed.problem}`);
    if (upstreamHeaders.some((header) => header.name === parsed))
      throw new UsageError(`${command}: ${parsed} is both set by --upstream-header and forwarded by --forward-header; pick one`);
    if (!forwardHeaders.includes(parsed)) forwardHeaders.push(parsed);
  }
  const given = [upstreamHeaders.length > 0 ? '--upstream-header' : undefined, forwardHeaders.length > 0 ? '--forward-header' : undefined].filter(
    (name) => name !== undefined,
  );
  if (given.length > 0 && context.upstream.kind !== 'url') {
    throw new UsageError(`${command}: ${given.join(' and ')} set HTTP headers of an --upstream-url; a spawned upstream takes its credentials from the environment`);
  }
  if (forwardHeaders.length > 0 && context.stdio) throw new UsageError(`${command}: --forward-header passes on HTTP headers of the client; stdio has none`);
  return { upstreamHeaders, forwardHeaders };
}

/** ` Name` of a `Name: value` for messages, which never show the value (often a secret). */
function headerNameOf(text: string): string {
  const colon = text.indexOf(':');
  return colon > 0 ? ` ${text.slice(0, colon).trim()}` : '';
}

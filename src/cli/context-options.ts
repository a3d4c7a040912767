import type { PrimitiveKind, RequestContextInput } from '../core/context.js';
import type { OptionSpecs, ParsedArgs } from './args.js';
import { parseJson, UsageError } from './io.js';
import { describeProfile, findClientProfile, profileContext, type ClientProfile } from './profiles.js';

/** Options shared by `explain` and `diff` that describe the request. */
export const requestOptionSpecs = {
  header: { type: 'string', multiple: true, value: 'NAME=VALUE', description: 'a request header (repeatable), e.g. x-canary=1' },
} as const satisfies OptionSpecs;

/** The endpoint a command assumes: the demo server's and the usual Streamable HTTP path. */
export const defaultEndpoint = '/mcp';

/** `name=value` or `name: value`, as people copy them from curl or docs. */
export function parseHeaders(values: readonly string[], command: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const match = /^([^=:\s]+)\s*(?:=|:\s*)(.*)$/s.exec(value);
    if (!match) throw new UsageError(`${command}: --header "${value}" must look like NAME=VALUE`);
    const name = match[1]!.toLowerCase();
    headers[name] = headers[name] === undefined ? match[2]! : `${headers[name]}, ${match[2]!}`;
  }
  return headers;
}

export function parseCapabilities(json: string, command: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJson(json, '--capabilities');
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${command}: --capabilities must be a JSON object such as '{"sampling": {}}'`);
  }
  return value as Record<string, unknown>;
}

/** Who is asking: a named profile, raw capabilities, or (neither given) a client that declares none. */
export interface ClientChoice {
  readonly label: string;
  readonly profile?: ClientProfile | undefined;
  readonly input: RequestContextInput;
}

export function chooseClient(args: ParsedArgs, command: string): ClientChoice {
  const name = args.string('client');
  const capabilities = args.string('capabilities');
  if (name !== undefined && capabilities !== undefined) {
    throw new UsageError(`${command}: pass either --client or --capabilities, not both`);
  }
  if (name !== undefined) return profileChoice(name, command);
  if (capabilities !== undefined) {
    return { label: '(from --capabilities)', input: { client: { capabilities: parseCapabilities(capabilities, command) } } };
  }
  return { label: '(no --client)', input: { client: { capabilities: {} } } };
}

export function profileChoice(name: string, command: string): ClientChoice {
  let profile: ClientProfile;
  try {
    profile = findClientProfile(name);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  return { label: describeProfile(profile), profile, input: profileContext(profile) };
}

/** The list request a gate evaluates a primitive for, so policies that read `request.method` see it. */
export function listMethod(kind: PrimitiveKind): string {
  switch (kind) {
    case 'tool':
      return 'tools/list';
    case 'prompt':
      return 'prompts/list';
    case 'resource':
      return 'resources/list';
    case 'resourceTemplate':
      return 'resources/templates/list';
  }
}

/** A full context input: the client's part, then the request's headers, endpoint and method. */
export function withRequest(client: RequestContextInput, headers: Record<string, string>, endpoint: string, method: string): RequestContextInput {
  return { ...client, request: { ...client.request, headers, endpoint, method } };
}

// One load client: a real SDK Client over Streamable HTTP that sends sessions of requests with
// a fresh context per request, and checks every answer against what the policy says.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, ExpectedView } from '../src/testing/index.js';

export type Operation = 'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'tools/call';
export const operations: readonly Operation[] = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'tools/call'];

export interface PlannedRequest {
  readonly operation: Operation;
  /** Headers of this one request (the session's plus a per-request `x-canary`). */
  readonly headers: Readonly<Record<string, string>>;
  /** For tools/call: the name asked for (public, internal or unknown). */
  readonly tool?: string;
  /** What the policy says this caller, with these headers, sees: computed before anything is timed. */
  readonly expected: ExpectedView;
}

export interface PlannedSession {
  readonly caller: Caller;
  readonly requests: readonly PlannedRequest[];
}

export interface Tally {
  requests: number;
  errors: number;
  mismatches: number;
  /** First few problems, for the report. */
  readonly problems: string[];
}

const toolArguments: Readonly<Record<string, Record<string, unknown>>> = {
  search: { query: 'gate' },
  deploy_preview: { branch: 'main' },
};
const requestTimeout = 10_000;

function note(tally: Tally, problem: string): void {
  if (tally.problems.length < 10) tally.problems.push(problem);
}

/** Runs one session: connect, every planned request in order, check each answer, end the session (DELETE). */
export async function runSession(base: URL, session: PlannedSession, tally: Tally): Promise<void> {
  let headers: Readonly<Record<string, string>> = session.caller.headers;
  // Per-request headers: the transport's fetch reads the ones of the request being sent.
  const fetchWithHeaders: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...headers } });
  const url = new URL(session.caller.endpoint || base.pathname, base);
  const transport = new StreamableHTTPClientTransport(url, { fetch: fetchWithHeaders });
  const { name, version, capabilities } = session.caller.client;
  const client = new Client({ name, version }, { capabilities: capabilities as ClientCapabilities });
  try {
    await client.connect(transport);
    for (const request of session.requests) {
      headers = request.headers;
      tally.requests++;
      try {
        const problem = await perform(client, request, request.expected);
        if (problem !== undefined) {
          tally.mismatches++;
          note(tally, `${request.operation} as ${JSON.stringify({ ...session.caller, headers: request.headers })}: ${problem}`);
        }
      } catch (error) {
        tally.errors++;
        note(tally, `${request.operation} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } catch (error) {
    tally.errors++;
    note(tally, `session failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

async function perform(client: Client, request: PlannedRequest, expected: ExpectedView): Promise<string | undefined> {
  const options = { timeout: requestTimeout };
  const same = (got: readonly string[], want: readonly string[]) =>
    JSON.stringify(got) === JSON.stringify(want) ? undefined : `got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`;
  switch (request.operation) {
    case 'tools/list':
      return same(
        (await client.listTools({}, options)).tools.map((tool) => tool.name),
        expected.tools,
      );
    case 'prompts/list':
      return same(
        (await client.listPrompts({}, options)).prompts.map((prompt) => prompt.name),
        expected.prompts,
      );
    case 'resources/list':
      return same(
        (await client.listResources({}, options)).resources.map((resource) => resource.uri),
        expected.resources,
      );
    case 'resources/templates/list':
      return same(
        (await client.listResourceTemplates({}, options)).resourceTemplates.map((template) => template.name),
        expected.templates,
      );
    case 'tools/call': {
      const name = request.tool!;
      const result = await client.callTool({ name, arguments: toolArguments[name] ?? {} }, undefined, options);
      const text = JSON.stringify(result.content);
      const unknown = result.isError === true && text.includes(`Tool ${name} not found`);
      return unknown === expected.tools.includes(name) ? `call of ${name}: ${text.slice(0, 160)}` : undefined;
    }
  }
}

import type { RegisteredPrimitive } from './registry.js';

/** Names no server registers: what "unknown" answers look like on this server. */
export const sentinels = {
  tool: 'mcp-gate-testing-unknown-tool',
  prompt: 'mcp-gate-testing-unknown-prompt',
  resources: ['mcp-gate-testing://unknown', 'urn:mcp-gate-testing:unknown', 'about:mcp-gate-testing-unknown'],
  template: 'mcp-gate-testing://unknown/{id}',
} as const;

/** The value template variables are expanded with when reading through a template. */
export const templateValue = 'mcp-gate-testing';

const methodNotFound = -32601;

export type ListName = 'tools' | 'prompts' | 'resources' | 'templates';
type Item = Record<string, unknown>;
type Probe = [key: string, ask: () => Promise<string>];

/** The requests the kit sends as one caller. */
export type ProbeMethod =
  'tools/list' | 'prompts/list' | 'resources/list' | 'resources/templates/list' | 'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete';

/**
 * One caller's way to the gated server, as a driver provides it: resolves with the result, or
 * rejects with the JSON-RPC error (`code`, `message`, `data`; over HTTP also the `status`).
 */
export interface CallerRequests {
  request(method: ProbeMethod, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** URIs as the server's own SDK treats them: templates expanded and matched, unknown URIs echoed in its answer. */
export interface ResourceUris {
  expand(uriTemplate: string, variables: Record<string, string>): string;
  matches(uriTemplate: string, uri: string): boolean;
  /** How "Resource not found" spells this URI; undefined when the SDK answers something else (an unparsable URI). */
  echoed(uri: string): string | undefined;
}

/** Everything one caller saw: every list (all pages) and the answer to every probe, as JSON. */
export interface Observation {
  readonly lists: Readonly<Record<ListName, readonly Item[]>>;
  /** `call:NAME`, `get:NAME`, `complete-prompt:NAME`, `read:URI`, `complete-template:URITEMPLATE` → outcome JSON. */
  readonly answers: ReadonlyMap<string, string>;
  readonly requests: number;
  readonly uris: ResourceUris;
}

export interface ProbeOptions {
  readonly concurrent: boolean;
  readonly toolArguments: (name: string) => Record<string, unknown>;
  /** Most pages followed per list. */
  readonly maxPages: number;
  readonly uris: ResourceUris;
}

/** The outcome of a request as comparable JSON: its result, or its error's code, message, data (and HTTP status, where there is one). */
export async function settle(promise: Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify({ result: await promise });
  } catch (error) {
    const { code, message, data, status } = error as { code?: unknown; message?: unknown; data?: unknown; status?: unknown };
    return JSON.stringify({ error: { code, message, data, status } });
  }
}

/** The variable names of a URI template (`users://{id}/x{?q}` → id, q). */
export function templateVariables(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(/\{[+#./;?&]?([^}]*)\}/g)].flatMap((match) => match[1]!.split(',').map((name) => name.replace(/[*]|:\d+$/g, '')));
}

function expandTemplate(uris: ResourceUris, uriTemplate: string): string {
  return uris.expand(uriTemplate, Object.fromEntries(templateVariables(uriTemplate).map((name) => [name, templateValue])));
}

const listMethods = { tools: 'tools/list', prompts: 'prompts/list', resources: 'resources/list', templates: 'resources/templates/list' } as const;

/** Asks everything a caller can ask about every registered primitive, plus the sentinels. */
export async function observe(client: CallerRequests, registry: readonly RegisteredPrimitive[], options: ProbeOptions): Promise<Observation> {
  let requests = 0;
  const run = async <T>(tasks: (() => Promise<T>)[]): Promise<T[]> => {
    requests += tasks.length;
    if (options.concurrent) return Promise.all(tasks.map((task) => task()));
    const results: T[] = [];
    for (const task of tasks) results.push(await task());
    return results;
  };

  const listAll = async (name: ListName): Promise<Item[]> => {
    const items: Item[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < options.maxPages; page++) {
      if (page > 0) requests++;
      const params = cursor === undefined ? {} : { cursor };
      let result: Record<string, unknown>;
      try {
        result = await client.request(listMethods[name], params);
      } catch (error) {
        // A server without any prompt (say) does not serve prompts/list at all: nothing is listed.
        if (page === 0 && (error as { code?: unknown }).code === methodNotFound) return items;
        throw error;
      }
      items.push(...(result[name === 'templates' ? 'resourceTemplates' : name] as Item[]));
      cursor = typeof result['nextCursor'] === 'string' ? result['nextCursor'] : undefined;
      if (cursor === undefined) return items;
    }
    throw new Error(`${name} list still had a next page after ${options.maxPages} pages`);
  };
  const listNames: ListName[] = ['tools', 'prompts', 'resources', 'templates'];
  const pages = await run(listNames.map((name) => () => listAll(name)));
  const lists = Object.fromEntries(listNames.map((name, index) => [name, pages[index]!])) as Record<ListName, Item[]>;

  const keysOf = (kind: RegisteredPrimitive['kind']) => registry.filter((primitive) => primitive.kind === kind);
  const names = (items: readonly Item[], field: string) => items.map((item) => String(item[field]));
  const unique = (...groups: (readonly string[])[]) => [...new Set(groups.flat())];
  const tools = unique(
    keysOf('tool').map((tool) => tool.key),
    names(lists.tools, 'name'),
    [sentinels.tool],
  );
  const prompts = unique(
    keysOf('prompt').map((prompt) => prompt.key),
    names(lists.prompts, 'name'),
    [sentinels.prompt],
  );
  const templates = unique(
    keysOf('resourceTemplate').map((template) => template.uriTemplate!),
    names(lists.templates, 'uriTemplate'),
    [sentinels.template],
  );
  const resources = unique(
    keysOf('resource').map((resource) => resource.key),
    names(lists.resources, 'uri'),
    templates.map((uriTemplate) => expandTemplate(options.uris, uriTemplate)),
    sentinels.resources,
  );

  const ask = (key: string, request: () => Promise<unknown>): Probe => [key, () => settle(request())];
  const probes: Probe[] = [
    ...tools.map((name) => ask(`call:${name}`, () => client.request('tools/call', { name, arguments: options.toolArguments(name) }))),
    ...prompts.map((name) => ask(`get:${name}`, () => client.request('prompts/get', { name, arguments: {} }))),
    ...prompts.map((name) =>
      ask(`complete-prompt:${name}`, () => client.request('completion/complete', { ref: { type: 'ref/prompt', name }, argument: { name: 'x', value: '' } })),
    ),
    ...resources.map((uri) => ask(`read:${uri}`, () => client.request('resources/read', { uri }))),
    ...templates.map((uri) => {
      const argument = { name: templateVariables(uri)[0] ?? 'x', value: '' };
      return ask(`complete-template:${uri}`, () => client.request('completion/complete', { ref: { type: 'ref/resource', uri }, argument }));
    }),
  ];
  const outcomes = await run(probes.map(([, probe]) => probe));
  return { lists, answers: new Map(probes.map(([key], index) => [key, outcomes[index]!])), requests, uris: options.uris };
}

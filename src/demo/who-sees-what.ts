import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

/** One caller of the demo: a real client profile, plus the headers and endpoint it uses. */
export interface Caller {
  readonly label: string;
  readonly clientName: string;
  readonly capabilities: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly path?: string;
}

export interface CallerView {
  readonly caller: Caller;
  readonly tools: string[];
  readonly prompts: string[];
  readonly resources: string[];
}

/**
 * Asks the running server, as each caller, what it lists: a real SDK Client over HTTP with the
 * caller's capabilities in `initialize` and its headers on every request.
 */
export async function listAsCallers(baseUrl: URL, callers: readonly Caller[]): Promise<CallerView[]> {
  const views: CallerView[] = [];
  for (const caller of callers) {
    const url = new URL(caller.path ?? baseUrl.pathname, baseUrl);
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: caller.headers ?? {} } });
    const client = new Client({ name: caller.clientName, version: '1.0.0' }, { capabilities: caller.capabilities as ClientCapabilities });
    await client.connect(transport);
    try {
      const [tools, prompts, resources, templates] = await Promise.all([client.listTools(), client.listPrompts(), client.listResources(), client.listResourceTemplates()]);
      views.push({
        caller,
        // Titles tell the versions of one public tool apart (`search v1` / `search v2`).
        tools: tools.tools.map((tool) => tool.title ?? tool.name),
        prompts: prompts.prompts.map((prompt) => prompt.name),
        resources: [...resources.resources.map((resource) => resource.uri), ...templates.resourceTemplates.map((template) => template.uriTemplate)],
      });
    } finally {
      await client.close();
    }
  }
  return views;
}

/** A plain-text table: one row per caller, the visible names per column. */
export function formatViews(views: readonly CallerView[]): string {
  const header = ['caller', 'tools', 'prompts', 'resources'];
  const rows = views.map((view) => [view.caller.label, view.tools.join(', '), view.prompts.join(', '), view.resources.join(', ')]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

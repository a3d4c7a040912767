import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createDemoServer, demoMetadata } from '../../src/demo/demo-server.js';
import { listAsCallers, type CallerView } from '../../src/demo/who-sees-what.js';
import { findClientProfile, profileContext } from '../../src/profiles/client-profiles.js';
import { createGate } from '../../src/sdk/index.js';
import { startHttpHost, type HttpHost } from '../../src/serve/http-host.js';
import { repositoryRoot, runInRepository } from '../cli/memory-io.js';

// The `initialize` params that `npx @modelcontextprotocol/inspector@2.12.0 --cli … --transport
// http` sent to `npm start`, captured by a logging proxy in front of the demo server.
const capturedInitialize = {
  protocolVersion: '2025-11-25',
  capabilities: { roots: { listChanged: true }, extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': {} } },
  clientInfo: { name: 'inspector-cli', version: '2.12.0' },
};

/** One row of the README's table of what the Inspector CLI lists. */
interface CliView {
  /** The CLI's URL and options as the README prints them. */
  readonly request: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** Tool titles as the demo lists them (`search v2`), then names. */
  readonly tools: readonly string[];
  readonly prompts: readonly string[];
  readonly resources: readonly string[];
}

const everyResource = ['workspace://files', 'docs://changelog', 'notes://{id}'];
const readmeRows: readonly CliView[] = [
  { request: 'http://127.0.0.1:3000/mcp', path: '/mcp', headers: {}, tools: ['search v2'], prompts: ['code_review'], resources: everyResource },
  {
    request: 'http://127.0.0.1:3000/mcp --header "x-tool-version: 1"',
    path: '/mcp',
    headers: { 'x-tool-version': '1' },
    tools: ['search v1'],
    prompts: ['code_review'],
    resources: everyResource,
  },
  {
    request: 'http://127.0.0.1:3000/mcp/admin --header "x-canary: 1"',
    path: '/mcp/admin',
    headers: { 'x-canary': '1' },
    tools: ['search v2', 'deploy_preview', 'admin_users', 'admin_flush_cache'],
    prompts: ['code_review'],
    resources: everyResource,
  },
];

interface ExplainedPrimitive {
  readonly kind: string;
  readonly name: string;
  readonly version?: string;
  readonly visible: boolean;
}

/** The demo's resources and template by name, as a client lists them. */
const demoUris: Record<string, string> = { workspace: 'workspace://files', changelog: 'docs://changelog', note: 'notes://{id}' };

/** The row as README.md prints it: `search v2` is "`search` (v2)". */
function readmeLine(view: CliView): string {
  const tools = view.tools.map((tool) => tool.replace(/^search v(\d)$/, '`search` (v$1)').replace(/^(\w+)$/, '`$1`'));
  const names = (list: readonly string[]) => list.map((name) => `\`${name}\``).join(', ');
  return `| \`${view.request}\` | ${tools.join(', ')} | ${names(view.prompts)} | ${names(view.resources)} |`;
}

describe('the MCP Inspector CLI profile', () => {
  it('is what Inspector 2.12.0 CLI sends in initialize', () => {
    const profile = findClientProfile('inspector-cli');
    expect(profileContext(profile)).toEqual({
      request: { protocolVersion: capturedInitialize.protocolVersion },
      client: { name: capturedInitialize.clientInfo.name, capabilities: capturedInitialize.capabilities },
    });
    expect(findClientProfile('MCP Inspector CLI')).toBe(profile);
    expect(Object.isFrozen(profile.capabilities)).toBe(true);
  });

  describe('against the demo server and policies/demo.json', () => {
    let host: HttpHost;
    beforeAll(async () => {
      const policyPath = `${repositoryRoot}policies/demo.json`;
      const policy = compilePolicy(JSON.parse(await readFile(policyPath, 'utf8')), { source: policyPath });
      host = await startHttpHost({ createServer: createDemoServer, gate: createGate({ policy, metadata: demoMetadata }), port: 0 });
    });
    afterAll(async () => {
      await host.close();
    });

    async function viewOverHttp(row: CliView): Promise<CallerView> {
      const profile = findClientProfile('inspector-cli');
      const [view] = await listAsCallers(host.url, [
        { label: row.request, clientName: profile.id, capabilities: { ...profile.capabilities }, headers: row.headers, path: row.path },
      ]);
      return view!;
    }

    it.each(readmeRows)('lists for $request what the README says, and the README says it', async (row) => {
      const view = await viewOverHttp(row);
      expect({ tools: view.tools, prompts: view.prompts, resources: view.resources }).toEqual({ tools: row.tools, prompts: row.prompts, resources: row.resources });
      const readme = await readFile(`${repositoryRoot}README.md`, 'utf8');
      expect(readme).toContain(readmeLine(row));
    });

    it('leaves out workspace://files for the 1.0.3 CLI, which declares nothing, and serves it search v1, as the README says', async () => {
      for (const row of readmeRows) {
        const [view] = await listAsCallers(host.url, [{ label: row.request, clientName: 'inspector', capabilities: {}, headers: row.headers, path: row.path }]);
        expect({ tools: view!.tools, prompts: view!.prompts, resources: view!.resources }).toEqual({
          tools: row.tools.map((tool) => tool.replace('search v2', 'search v1')),
          prompts: row.prompts,
          resources: row.resources.filter((uri) => uri !== 'workspace://files'),
        });
      }
      const readme = (await readFile(`${repositoryRoot}README.md`, 'utf8')).replace(/\s+/g, ' ');
      expect(readme).toContain('declares no capabilities at all, so it lists the same without `workspace://files`, and `search` (v1) for its name `inspector`');
    });

    it.each(readmeRows)('is what `mcp-gate explain --client inspector-cli` shows for $request', async (row) => {
      const headers = Object.entries(row.headers).flatMap(([name, value]) => ['--header', `${name}=${value}`]);
      const explained = await runInRepository([
        'explain',
        '--policy',
        'policies/demo.json',
        '--server',
        'src/demo/demo-server.ts',
        '--client',
        'inspector-cli',
        '--endpoint',
        row.path,
        ...headers,
        '--json',
      ]);
      expect(explained.code).toBe(0);
      const visible = (JSON.parse(explained.stdout) as { primitives: ExplainedPrimitive[] }).primitives.filter((primitive) => primitive.visible);
      const named = (kind: string) => visible.filter((primitive) => primitive.kind === kind);
      expect({
        // The demo titles its search versions `search v1` and `search v2`.
        tools: named('tool').map((tool) => (tool.version === undefined ? tool.name : `${tool.name} v${tool.version.split('.')[0]}`)),
        prompts: named('prompt').map((prompt) => prompt.name),
        resources: [...named('resource'), ...named('resourceTemplate')].map((resource) => demoUris[resource.name]),
      }).toEqual({ tools: row.tools, prompts: row.prompts, resources: row.resources });
    });
  });
});

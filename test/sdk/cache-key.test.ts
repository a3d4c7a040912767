import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { startHttp, type HttpHarness } from './http-server.js';

// A rule reading below a header (`x-team.length`) once keyed the gate's list cache on a header
// *named* `x-team.length`, which no caller sends: every caller shared one cached list, and a
// caller shown another's list saw a tool that then answered "not found".
const policy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'short-teams-only', effect: 'deny', appliesTo: { groups: ['team'] }, when: { '!': [{ '<': [{ var: 'request.headers.x-team.length' }, 8] }] } }],
});

function createMcpServer(): McpServer {
  const server = new McpServer(serverInfo);
  server.registerTool('search', {}, async () => ({ content: [{ type: 'text', text: 'search' }] }));
  server.registerTool('team-report', { _meta: { 'mcp-gate': { groups: ['team'] } } }, async () => ({ content: [{ type: 'text', text: 'report' }] }));
  return server;
}

/** A client whose requests carry `X-Team: team.value`, read at each request: one session, changing callers. */
async function connect(harness: HttpHarness, team: { value: string }): Promise<Client> {
  const client = new Client({ name: 'team-client', version: '1.0.0' });
  const fetchWithTeam = (url: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('X-Team', team.value);
    return fetch(url, { ...init, headers });
  };
  await client.connect(new StreamableHTTPClientTransport(harness.url('/mcp'), { fetch: fetchWithTeam }));
  return client;
}

/** The tools a client lists, and which of them it can call. */
async function listedAndCallable(client: Client): Promise<{ listed: string[]; callable: string[] }> {
  const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const callable: string[] = [];
  for (const name of ['search', 'team-report']) {
    const result = await client.callTool({ name, arguments: {} });
    if (!result.isError) callable.push(name);
  }
  return { listed, callable: callable.sort() };
}

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('gate (cache keys over a v1 session)', () => {
  for (const mode of ['stateful', 'stateless'] as const) {
    it(`lists exactly what a caller can call when requests differ below a header (${mode})`, async () => {
      harness = await startHttp(mode, createMcpServer, createGate({ policy }));
      const team = { value: 'abc' };
      const client = await connect(harness, team);
      // Each team lists twice in turn, so every list is also served from the cache.
      for (const value of ['abc', 'abcdefghij', 'abc', 'abcdefghij', 'abcdefghij', 'abc']) {
        team.value = value;
        const view = await listedAndCallable(client);
        expect(view.listed).toEqual(view.callable);
        expect(view.listed).toEqual(value.length < 8 ? ['search', 'team-report'] : ['search']);
      }
      await client.close();
    });
  }

  it('opens a cursor only for requests that would list the same tools', async () => {
    harness = await startHttp('stateful', createMcpServer, createGate({ policy, pageSize: 1 }));
    const team = { value: 'abc' };
    const client = await connect(harness, team);
    const first = await client.listTools();
    expect(first.tools.map((tool) => tool.name)).toEqual(['search']);
    team.value = 'abcdefghij';
    // Under the long team the list is ['search'] alone: the short team's cursor is not for it.
    await expect(client.listTools({ cursor: first.nextCursor })).rejects.toThrow('Invalid cursor');
    team.value = 'xyz';
    expect((await client.listTools({ cursor: first.nextCursor })).tools.map((tool) => tool.name)).toEqual(['team-report']);
    await client.close();
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

async function connect(name: string, capabilities: Record<string, object>): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const serverScript = new URL('./stdio-server.ts', import.meta.url).pathname;
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', serverScript], stderr: 'pipe' }));
  return client;
}

describe('gate over stdio (a spawned server process)', () => {
  it('builds the context from the session initialize: client name and capabilities, no headers or endpoint', async () => {
    // Two server processes, started side by side: each spends most of its start in tsx.
    const [beta, other] = await Promise.all([connect('beta-client', { sampling: {} }), connect('other-client', {})]);
    expect((await beta.listTools()).tools.map((tool) => tool.name)).toEqual(['stable', 'beta', 'sampler']);
    expect((await other.listTools()).tools.map((tool) => tool.name)).toEqual(['stable']);
    expect((await other.callTool({ name: 'beta' })).content).toEqual([{ type: 'text', text: 'MCP error -32602: Tool beta not found' }]);
    await Promise.all([beta.close(), other.close()]);
  });
});

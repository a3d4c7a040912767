// mcp-framework's default transport, stdio (one low-level Server made in start()), gated with
// gateMcpFramework in a spawned process and reached by the real SDK Client: the policy reads the
// client's name from its initialize.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';

const serverScript = fileURLToPath(new URL('./mcp-framework-stdio-server.ts', import.meta.url));
let client: Client | undefined;

async function connect(name: string): Promise<Client> {
  client = new Client({ name, version: '1.0.0' });
  // stderr is mcp-framework's log: not asserted, not printed.
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', serverScript], stderr: 'ignore' }), { timeout: 30_000 });
  return client;
}

afterEach(async () => {
  await client?.close();
});

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

describe('gateMcpFramework over mcp-framework stdio', () => {
  it('hides the secret primitives from a client that is not admin, and answers them as unknown', async () => {
    const guest = await connect('guest');
    expect(names((await guest.listTools()).tools)).toEqual(['public-tool']);
    expect(names((await guest.listResources()).resources)).toEqual(['public-doc', 'public-template']);
    await expect(guest.getPrompt({ name: 'secret-prompt' })).rejects.toThrow('MCP error -32603: Unknown prompt: secret-prompt. Available prompts: public-prompt');
  }, 60_000);

  it('shows them to the admin client', async () => {
    const admin = await connect('admin');
    expect(names((await admin.listTools()).tools)).toEqual(['public-tool', 'secret-tool']);
    expect((await admin.getPrompt({ name: 'secret-prompt' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'secret' } }]);
  }, 60_000);
});

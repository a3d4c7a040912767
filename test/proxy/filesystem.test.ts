// `mcp-gate proxy` in front of @modelcontextprotocol/server-filesystem from npm over stdio, with an
// overlay that puts its write tools in a group only read-write callers may use: a read-only caller
// can neither list nor call them (answered as a tool the server does not have), and the directory
// it serves shows that none of its calls wrote anything.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawAnswer, recordReceived, startProxy, type RunningProxy, type WireRecorder } from './harness.js';

const writeTools = ['write_file', 'edit_file', 'create_directory', 'move_file'];

interface Caller {
  readonly client: Client;
  readonly recorder: WireRecorder;
}

async function connectCaller(url: URL, access: string): Promise<Caller> {
  const client = new Client({ name: `${access}-caller`, version: '1.0.0' });
  const { transport, ...recorder } = recordReceived(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-access': access } } }));
  await client.connect(transport);
  return { client, recorder };
}

/** Every file and directory under `root` with its content, to compare before and after. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    files[path.slice(root.length)] = entry.isDirectory() ? '<dir>' : await readFile(path, 'utf8');
  }
  return files;
}

describe('mcp-gate proxy in front of server-filesystem (npm) over stdio', () => {
  let root: string;
  let proxy: RunningProxy;
  let reader: Caller;
  let writer: Caller;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcp-gate-filesystem-'));
    await writeFile(join(root, 'notes.txt'), 'first line\n');
    proxy = await startProxy([
      '--policy',
      'test/proxy/fixtures/filesystem-read-only.policy.json',
      '--overlay',
      'test/proxy/fixtures/filesystem.overlay.json',
      '--upstream-cmd',
      `${process.execPath} node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ${root}`,
    ]);
    [reader, writer] = await Promise.all([connectCaller(proxy.url, 'read-only'), connectCaller(proxy.url, 'read-write')]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([reader?.client.close(), writer?.client.close()]);
    await proxy?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('lists no write tool to a read-only caller, and every one to a read-write caller', async () => {
    const readerTools = (await reader.client.listTools()).tools.map((tool) => tool.name);
    const writerTools = (await writer.client.listTools()).tools.map((tool) => tool.name);
    expect(readerTools).toEqual(expect.arrayContaining(['read_text_file', 'list_directory', 'search_files']));
    expect(readerTools.filter((name) => writeTools.includes(name))).toEqual([]);
    expect(writerTools).toEqual(expect.arrayContaining(writeTools));
    expect(writerTools.filter((name) => !writeTools.includes(name))).toEqual(readerTools);
  });

  it('answers a read-only caller’s write calls as calls of a tool the server does not have, and nothing is written', async () => {
    const before = await snapshot(root);
    const file = join(root, 'notes.txt');
    const calls: Record<string, Record<string, unknown>> = {
      write_file: { path: join(root, 'new.txt'), content: 'written' },
      edit_file: { path: file, edits: [{ oldText: 'first', newText: 'edited' }] },
      create_directory: { path: join(root, 'made') },
      move_file: { source: file, destination: join(root, 'moved.txt') },
    };
    for (const [name, args] of Object.entries(calls)) {
      const hidden = await rawAnswer(reader.client, reader.recorder, 'tools/call', { name, arguments: args });
      const unknown = await rawAnswer(reader.client, reader.recorder, 'tools/call', { name: `never-registered-${name}`, arguments: args });
      expect(hidden, name).toBe(unknown.split(`never-registered-${name}`).join(name));
    }
    expect(await snapshot(root)).toEqual(before);
    // Reads still go through.
    const read = await reader.client.callTool({ name: 'read_text_file', arguments: { path: file } });
    expect(JSON.stringify(read.content)).toContain('first line');
  });

  it('lets a read-write caller write through the same proxy', async () => {
    const result = await writer.client.callTool({ name: 'write_file', arguments: { path: join(root, 'by-writer.txt'), content: 'from the writer' } });
    expect(result.isError).not.toBe(true);
    expect(await readFile(join(root, 'by-writer.txt'), 'utf8')).toBe('from the writer');
  });
});

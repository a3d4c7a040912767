import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparable, postModern, type Endpoint } from './http.js';

const serverScript = fileURLToPath(new URL('./scale-out-server.ts', import.meta.url));
const children: ChildProcess[] = [];

/** Spawns one server process and waits (bounded) for the port it prints. */
async function spawnServer(): Promise<Endpoint> {
  const child = spawn(process.execPath, ['--import', 'tsx', serverScript], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server process did not print its port within 15 s')), 15_000);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /PORT=(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server process exited with ${String(code)}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: async () => void child.kill('SIGTERM') };
}

let first: Endpoint;
let second: Endpoint;
beforeAll(async () => {
  [first, second] = await Promise.all([spawnServer(), spawnServer()]);
}, 30_000);
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

const clients = Array.from({ length: 12 }, (_, index) => `client-${index}`);

async function listAll(start: Endpoint, next: Endpoint, clientName: string): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  // Alternate instances page by page, as a load balancer without sticky sessions would.
  for (let page = 0; page < 10; page++) {
    const endpoint = page % 2 === 0 ? start : next;
    const answer = await postModern(endpoint, 'tools/list', cursor ? { cursor } : {}, { clientInfo: { name: clientName, version: '1' }, id: page });
    expect(answer.body.error, `${clientName} page ${page}`).toBeUndefined();
    names.push(...(answer.body.result!['tools'] as { name: string }[]).map((tool) => tool.name));
    cursor = answer.body.result!['nextCursor'] as string | undefined;
    if (cursor === undefined) return names;
  }
  throw new Error('pagination did not end');
}

describe('gate (mcp-gate/server) scaled out: two processes, one policy', () => {
  it('answers the same request identically in both processes', async () => {
    for (const clientName of clients) {
      for (const [method, params] of [
        ['tools/list', {}],
        ['tools/call', { name: 'insights', arguments: {} }],
        ['tools/call', { name: 'admin-reset', arguments: {} }],
        ['prompts/list', {}],
      ] as const) {
        const options = { clientInfo: { name: clientName, version: '1' } };
        const [fromFirst, fromSecond] = await Promise.all([postModern(first, method, params, options), postModern(second, method, params, options)]);
        expect(comparable(fromFirst), `${clientName} ${method}`).toEqual(comparable(fromSecond));
      }
    }
  });

  it('buckets a percentage rollout by client, the same in both processes, and not all-or-nothing', async () => {
    const seen = await Promise.all(clients.map(async (clientName) => (await listAll(first, first, clientName)).includes('insights')));
    expect(seen.some(Boolean) && !seen.every(Boolean)).toBe(true);
  });

  it('accepts a cursor issued by the other process (no sticky sessions)', async () => {
    for (const clientName of clients.slice(0, 4)) {
      expect(await listAll(first, second, clientName)).toEqual(await listAll(first, first, clientName));
    }
  });
});

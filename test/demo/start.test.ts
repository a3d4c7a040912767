import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce } from '../built-dist.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `npm start` after its build (`npm run build && node dist/demo/start.js`), with PORT set: from this run's build (test/built-dist.ts). */
function startDemo(port: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['dist/demo/start.js'], { cwd: repositoryRoot, env: { ...process.env, PORT: port }, timeout: 30_000 }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

beforeAll(async () => expect(await buildDistOnce(), 'npm run build --noCheck').toBe(''), 180_000);

// Concurrent: each test only waits on its own demo processes.
describe.concurrent('npm start (dist/demo/start.js)', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('names a busy port and how to pick another, in one line', async ({ expect }) => {
    const result = await startDemo(String(busyPort));
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `mcp-gate demo: port ${busyPort} on 127.0.0.1 is in use; start the demo on another with PORT=${busyPort + 1} npm start (PORT=0 picks a free one)\n`,
    });
  }, 60_000);

  it('rejects a PORT that is not a port number', async ({ expect }) => {
    const ports = ['abc', '70000', '-1'];
    const results = await Promise.all(ports.map(startDemo));
    expect(results).toEqual(ports.map((port) => ({ code: 1, stdout: '', stderr: `mcp-gate demo: PORT must be a number from 0 to 65535, got "${port}"\n` })));
  }, 60_000);
});

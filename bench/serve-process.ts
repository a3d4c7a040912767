// Starts `mcp-gate serve` in a child process (node + tsx, as `npx tsx src/cli/main.ts` would), so
// a bench's client and the server do not share an event loop or a heap, as on a real machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

export interface ServeProcess {
  readonly url: URL;
  readonly child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

const tsxLoader = createRequire(import.meta.url).resolve('tsx');

export async function startServeProcess(argv: readonly string[], nodeFlags: readonly string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', tsxLoader, 'src/cli/main.ts', 'serve', '--port', '0', ...argv], {
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 20 s:\n${stderr}`)), 20_000);
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    };
    child.stderr!.on('data', check);
    void exited.then(() => reject(new Error(`serve exited before listening:\n${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

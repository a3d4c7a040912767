import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { repositoryRoot, waitFor } from '../serve/harness.js';

export interface EverythingHttpUpstream {
  /** Its Streamable HTTP endpoint, http://127.0.0.1:PORT/mcp. */
  readonly url: URL;
  readonly pid: number;
  /** Ends the process at once (SIGKILL): a crash, not a shutdown. */
  kill(): Promise<void>;
}

/**
 * `@modelcontextprotocol/server-everything streamableHttp` from npm, in its own process, bound to
 * 127.0.0.1 by a preload (the CLI listens on every interface). `port` 0 picks a free one; pass a
 * port to start it again where a killed one was.
 */
export async function startEverythingHttp(port = 0): Promise<EverythingHttpUpstream> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', './test/proxy/fixtures/everything-http-loopback.mjs', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'],
    { cwd: repositoryRoot, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  const listening = await waitFor(
    'server-everything to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`server-everything exited ${child.exitCode} before listening:\n${stderr}`);
      const match = /loopback listening on (\{.*\})/.exec(stderr);
      return match ? (JSON.parse(match[1]!) as { port: number }) : undefined;
    },
    30_000,
  );
  return {
    url: new URL(`http://127.0.0.1:${listening.port}/mcp`),
    pid: child.pid!,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

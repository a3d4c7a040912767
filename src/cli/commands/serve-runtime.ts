// What `mcp-gate serve` runs through the v1 SDK: serve.ts imports this module through
// `importPeer` in execute, so the command's help and the command list load without the SDK.
import { createDemoServer, demoMetadata } from '../../demo/demo-server.js';
import type { Gate } from '../../sdk/index.js';
import type { BearerVerifier } from '../../serve/bearer-auth.js';
import { startHttpHost, type HttpHost } from '../../serve/http-host.js';
import { aborted, serveOverStdio, type Serving } from '../../serve/lifetime.js';
import { InputError, type CliIo } from '../io.js';
import type { ServerModule } from '../server-module.js';
import type { ServeSettings } from './serve.js';

export { createGate } from '../../sdk/index.js';

const command = 'mcp-gate serve';

export const demoModule: ServerModule = {
  name: 'src/demo/demo-server.ts',
  factoryName: 'createDemoServer',
  createServer: createDemoServer,
  metadata: demoMetadata,
  metadataName: 'demoMetadata',
};

export type { Serving };

export async function serveHttp(
  module: ServerModule,
  gate: Gate,
  settings: Omit<ServeSettings, 'bearer'> & { readonly bearer: BearerVerifier | undefined },
  signal: AbortSignal,
  note: (text: string) => void,
): Promise<Serving> {
  let host: HttpHost;
  try {
    host = await startHttpHost({
      createServer: module.createServer,
      gate,
      port: settings.port,
      stateless: settings.stateless,
      maxSessions: settings.maxSessions,
      sessionIdleTimeoutMs: settings.sessionIdleTimeoutMs,
      ...(settings.bearer === undefined ? {} : { bearer: settings.bearer }),
      onError: (error) => note(`error: ${error instanceof Error ? error.message : String(error)}`),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EADDRINUSE') {
      throw new InputError(`${command}: port ${settings.port} on 127.0.0.1 is in use; pick another with --port N (0 picks a free one)`);
    }
    throw error;
  }
  const idle = settings.sessionIdleTimeoutMs === 0 ? 'no idle timeout' : `closed after ${settings.sessionIdleTimeoutMs / 1000} s idle`;
  const sessions = settings.stateless ? 'stateless: one server per request' : `a session per client, at most ${settings.maxSessions}, ${idle}`;
  const mode = settings.onMissingCapabilities === 'allow' ? `${sessions}; undeclared capabilities meet every requirement` : sessions;
  note(`listening on ${host.url.href} (${mode}; paths below ${host.url.pathname} are endpoints too)`);
  if (settings.bearer) note(`verifying bearer tokens of ${settings.bearer.issuer} for ${settings.bearer.audience} (--jwks)`);
  return { done: aborted(signal), close: () => host.close() };
}

export async function serveStdio(io: CliIo, module: ServerModule, gate: Gate, signal: AbortSignal, note: (text: string) => void): Promise<Serving> {
  const stdio = io.stdio;
  if (stdio === undefined) throw new Error('serve --stdio needs io.stdio');
  const server = module.createServer();
  gate.install(server);
  const serving = await serveOverStdio(server, stdio, signal);
  note('speaking MCP on stdin/stdout');
  return serving;
}

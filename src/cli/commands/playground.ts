import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { displayPath, exitCodes, InputError, readText, resolvePath, UsageError } from '../io.js';
import { loadPrimitives, primitiveSourceOptionSpecs, toManifestPrimitive } from '../manifest.js';
import { describeUpstream, readUpstreamSpec, upstreamSourceUsage } from '../upstream-source.js';

const command = 'mcp-gate playground';
const defaultPort = 4747;

export const playgroundCommand: Command = {
  name: 'playground',
  summary: 'serve the policy playground on 127.0.0.1: edit a policy and see who sees what',
  usage: `mcp-gate playground [--policy FILE] [--manifest FILE | --server MODULE [--export NAME] | ${upstreamSourceUsage}] [--overlay FILE] [--port N]`,
  description: [
    'Serves the playground page on 127.0.0.1 with the policy and the primitives preloaded, prints its',
    'URL and runs until stopped (Ctrl-C); it opens no browser. Without --policy the page starts with the',
    "demo policy, without --manifest or --server with the demo server's primitives. The page compares",
    'the edited policy with the file as loaded. The same page works without this command: npm run',
    'build:playground writes it to dist/playground/, which opens from file:// or any static host.',
  ].join('\n'),
  options: {
    policy: { type: 'string', value: 'FILE', description: 'the policy to start from (shown as written, problems and all)' },
    manifest: { type: 'string', value: 'FILE', description: 'the primitives, as JSON {"primitives": […]} (or --server)' },
    ...primitiveSourceOptionSpecs,
    port: { type: 'string', value: 'N', description: `TCP port on 127.0.0.1 (default ${defaultPort}; 0 picks a free one)` },
  },
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
    const portText = args.string('port');
    if (portText !== undefined && (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)) {
      throw new UsageError(`${command}: --port must be a number from 0 to 65535, got "${portText}"`);
    }
    const preload: Record<string, unknown> = {};
    const described: string[] = [];
    const policyPath = args.string('policy');
    if (policyPath !== undefined) {
      const absolutePath = resolvePath(io, policyPath);
      preload.policy = await readText(io, absolutePath);
      preload.policyFile = basename(absolutePath);
      described.push(`policy ${displayPath(io, absolutePath)}`);
    } else described.push('the demo policy');
    const upstream = readUpstreamSpec(args, command);
    // --overlay alone goes to loadPrimitives too, which refuses it without an upstream.
    if (['manifest', 'server', 'overlay'].some((name) => args.string(name) !== undefined) || upstream !== undefined) {
      const primitives = await loadPrimitives(io, args, command);
      preload.primitives = primitives.map(toManifestPrimitive);
      const source = args.string('manifest') ?? args.string('server') ?? (upstream && describeUpstream(upstream));
      described.push(`${primitives.length} primitives from ${source}`);
    } else described.push("the demo server's primitives");

    const signal = io.signal;
    if (signal === undefined) throw new Error('playground needs io.signal to know when to stop');
    const assets = findAssets();
    const page = await readPage(assets, preload);
    const script = await readFile(join(assets, 'playground.js'));
    const server = createServer((request, response) => answer(request, response, page, script, port));
    let port = portText === undefined ? defaultPort : Number(portText);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'EADDRINUSE' ? new InputError(`${command}: port ${port} on 127.0.0.1 is in use; pick another with --port N (0 picks a free one)`) : error),
      );
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as { port: number }).port;
    writeLines(io.stdout, `${command}: http://127.0.0.1:${port}/ (${described.join(', ')}); Ctrl-C stops`);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    writeLines(io.stdout, `${command}: stopped`);
    return exitCodes.ok;
  },
};

/** The built page: next to the compiled CLI in the package, or dist/playground/ when run from source. */
function findAssets(): string {
  const candidates = [new URL('../../playground/', import.meta.url), new URL('../../../dist/playground/', import.meta.url)].map((url) => fileURLToPath(url));
  const found = candidates.find((directory) => existsSync(join(directory, 'index.html')) && existsSync(join(directory, 'playground.js')));
  if (found === undefined) throw new InputError(`${command}: the page is not built; run "npm run build:playground" (looked in ${candidates.join(' and ')})`);
  return found;
}

/** index.html with the preloaded state as a JSON data block (never run as script; `<` escaped so it cannot end the block). */
async function readPage(assets: string, preload: Record<string, unknown>): Promise<Buffer> {
  const html = await readFile(join(assets, 'index.html'), 'utf8');
  const json = JSON.stringify(preload).replace(/</g, '\\u003c');
  return Buffer.from(html.replace('<!--mcp-gate-preload-->', `<script type="application/json" id="mcp-gate-preload">${json}</script>`));
}

function answer(request: IncomingMessage, response: ServerResponse, page: Buffer, script: Buffer, port: number): void {
  // Only this origin: a page elsewhere whose name resolves to 127.0.0.1 (DNS rebinding) gets nothing.
  const host = request.headers.host;
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return send(response, 403, 'text/plain; charset=utf-8', Buffer.from('forbidden host\n'));
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'text/plain; charset=utf-8', Buffer.from('method not allowed\n'));
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  if (path === '/' || path === '/index.html') return send(response, 200, 'text/html; charset=utf-8', page, request.method === 'HEAD');
  if (path === '/playground.js') return send(response, 200, 'text/javascript; charset=utf-8', script, request.method === 'HEAD');
  send(response, 404, 'text/plain; charset=utf-8', Buffer.from('not found\n'));
}

function send(response: ServerResponse, status: number, type: string, body: Buffer, headOnly = false): void {
  response.writeHead(status, { 'content-type': type, 'content-length': body.length, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  response.end(headOnly ? undefined : body);
}

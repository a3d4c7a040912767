import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPeer, MissingPeerError, missingPackage, optionalPeers } from '../../src/cli/peers.js';
import { commandEntries } from '../../src/cli/run.js';
import { run } from '../../src/cli/run.js';
import { createMemoryIo, json, runWith } from './memory-io.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** What Node throws for `import('@modelcontextprotocol/sdk/server/mcp.js')` when the package is absent. */
function notFound(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('importPeer', () => {
  it('turns a missing peer into one line naming the package and how to install it', async () => {
    const load = () => Promise.reject(notFound("Cannot find package '@modelcontextprotocol/sdk' imported from /p/node_modules/mcp-gate/dist/cli/server-module.js"));
    const error = await importPeer('@modelcontextprotocol/sdk', 'mcp-gate serve', load).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingPeerError);
    expect((error as MissingPeerError).packageName).toBe('@modelcontextprotocol/sdk');
    expect((error as Error).message).toBe(
      'mcp-gate serve: needs @modelcontextprotocol/sdk (the v1 MCP TypeScript SDK), which is not installed; install it with: npm install "@modelcontextprotocol/sdk@^1.32.0"',
    );
  });

  it('passes through a missing file of mcp-gate itself and a missing dependency of the peer', async () => {
    const ownFile = notFound("Cannot find module '/p/node_modules/mcp-gate/dist/cli/server-module.js' imported from /p/node_modules/mcp-gate/dist/cli/manifest.js");
    const peerDependency = notFound("Cannot find package 'express' imported from /p/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js");
    for (const error of [ownFile, peerDependency, new SyntaxError('Unexpected token')]) {
      await expect(importPeer('@modelcontextprotocol/sdk', 'mcp-gate serve', () => Promise.reject(error))).rejects.toBe(error);
    }
  });

  it('returns what the import returns when the peer is there', async () => {
    await expect(importPeer('@modelcontextprotocol/sdk', 'mcp-gate serve', () => import('@modelcontextprotocol/sdk/types.js'))).resolves.toHaveProperty('ErrorCode');
  });

  it('names the range of package.json for each optional peer it installs', () => {
    for (const [peer, { range }] of Object.entries(optionalPeers)) {
      expect(packageJson.peerDependencies[peer]).toBe(range);
      expect(packageJson.peerDependenciesMeta[peer]?.optional).toBe(true);
    }
  });
});

describe('missingPackage', () => {
  it('reads the package from a bare, a scoped and a subpath specifier', () => {
    expect(missingPackage(notFound("Cannot find package 'fast-check' imported from /x.js"))).toBe('fast-check');
    expect(missingPackage(notFound("Cannot find package '@modelcontextprotocol/server' imported from /x.js"))).toBe('@modelcontextprotocol/server');
    expect(missingPackage(notFound("Cannot find package '@modelcontextprotocol/sdk/server/mcp.js' imported from /x.js"))).toBe('@modelcontextprotocol/sdk');
    expect(missingPackage(new Error("Cannot find package 'fast-check'"))).toBeUndefined();
  });
});

/**
 * The modules a file loads when it is imported: static imports and re-exports, not `import type`
 * and not `import()` (what a command loads when it runs), followed through relative specifiers.
 */
function staticImportGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)].map((match) => match[1]!);
    graph.set(file, specifiers);
    for (const specifier of specifiers) if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
  }
  return graph;
}

describe('commandEntries', () => {
  it('loads the command list and every command module, serve included, without importing an MCP SDK', () => {
    const graph = staticImportGraph('src/cli/run.ts');
    expect([...graph.keys()].some((file) => file.endsWith('src/cli/commands/serve.ts'))).toBe(true);
    const sdkImports = [...graph].flatMap(([file, specifiers]) =>
      specifiers.filter((specifier) => specifier.startsWith('@modelcontextprotocol/')).map((specifier) => `${file} imports ${specifier}`),
    );
    expect(sdkImports).toEqual([]);
  });

  it('sees an SDK import where there is one (the scan cannot pass by finding nothing)', () => {
    const graph = staticImportGraph('src/serve/lifetime.ts');
    expect(graph.get(resolve('src/serve/lifetime.ts'))).toContain('@modelcontextprotocol/sdk/server/stdio.js');
  });

  it('shows serve in the list and its help', async () => {
    expect(commandEntries.map((entry) => entry.name)).toContain('serve');
    const result = await runWith(['serve', '--help'], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: mcp-gate serve --policy FILE/);
  });
});

describe('mcp-gate explain', () => {
  const policy = json({ version: 1, default: 'allow' });
  it('counts one primitive in the singular', async () => {
    const result = await runWith(['explain', '--policy', 'policy.json', '--manifest', 'manifest.json'], {
      'policy.json': policy,
      'manifest.json': json({ primitives: [{ kind: 'tool', name: 'search' }] }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\n1 of 1 primitive visible\.\n$/);
  });

  it('counts no primitives in the plural', async () => {
    const result = await runWith(['explain', '--policy', 'policy.json', '--manifest', 'manifest.json'], { 'policy.json': policy, 'manifest.json': json({ primitives: [] }) });
    expect(result.stdout).toMatch(/\n0 of 0 primitives visible\.\n$/);
  });
});

describe('mcp-gate explain --server', () => {
  const files = { 'policy.json': json({ version: 1, default: 'allow' }), 'server.js': 'export {}\n' };
  async function explainWhenImportFails(error: Error) {
    const io = { ...createMemoryIo(files), importModule: () => Promise.reject(error) };
    const code = await run(['explain', '--policy', 'policy.json', '--server', 'server.js'], io);
    return { code, stdout: io.out.join(''), stderr: io.err.join('') };
  }

  it('names the v1 SDK and exits 3 when the server module cannot import it', async () => {
    const result = await explainWhenImportFails(notFound("Cannot find package '@modelcontextprotocol/sdk' imported from /project/server.js"));
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'server.js: needs @modelcontextprotocol/sdk (the v1 MCP TypeScript SDK), which is not installed; install it with: npm install "@modelcontextprotocol/sdk@^1.32.0"\n',
    });
  });

  it('reports any other package the module cannot find as a module that cannot load (exit 1)', async () => {
    const result = await explainWhenImportFails(notFound("Cannot find package 'left-pad' imported from /project/server.js"));
    expect(result).toEqual({ code: 1, stdout: '', stderr: "server.js: cannot load: Cannot find package 'left-pad' imported from /project/server.js\n" });
  });
});

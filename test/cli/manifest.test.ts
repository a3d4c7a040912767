import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runInRepository, runWith } from './memory-io.js';

const fixture = (name: string) => `test/cli/fixtures/${name}`;

describe('mcp-gate manifest', () => {
  it('reads the demo server as the gate does and prints policies/demo.manifest.json', async () => {
    const result = await runInRepository(['manifest', '--server', 'src/demo/demo-server.ts']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const shipped = JSON.parse(await readFile(join(repositoryRoot, 'policies/demo.manifest.json'), 'utf8')) as unknown;
    expect(JSON.parse(result.stdout)).toEqual(shipped);
  });

  it('reads a compiled JavaScript module: versioned tools by public name, the metadata export over _meta, disabled tools left out', async () => {
    const result = await runInRepository(['manifest', '--server', fixture('server-module.js')]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      server: { name: 'fixture', version: '2.1.0' },
      primitives: [
        { kind: 'tool', name: 'lookup', version: '1.0.0' },
        { kind: 'tool', name: 'lookup', version: '2.0.0', groups: ['rollout'] },
        { kind: 'tool', name: 'admin', tags: ['writes'], requires: { headers: { 'x-role': 'admin' } }, endpoints: ['/mcp/admin'] },
        // SDK 1.32 drops a prompt's _meta; only the metadata export annotates it, as for the gate.
        { kind: 'prompt', name: 'draft', groups: ['beta'] },
        { kind: 'resource', name: 'files', uri: 'files://all', requires: { capabilities: ['roots'] } },
        { kind: 'resourceTemplate', name: 'note', uriTemplate: 'notes://{id}' },
      ],
    });
    expect(result.stderr).toBe(`${fixture('server-module.js')}: warning: metadata["tool:ghost"] matches no registration\n`);
  });

  it('finds a default export, and a create…Server export with its <name>Metadata via --export', async () => {
    const byDefault = await runInRepository(['manifest', '--server', fixture('default-export.js')]);
    expect(byDefault.code).toBe(0);
    expect(JSON.parse(byDefault.stdout).primitives).toEqual([{ kind: 'tool', name: 'only', groups: ['beta'] }]);
    const picked = await runInRepository(['manifest', '--server', fixture('two-factories.js'), '--export', 'createPublicServer']);
    expect(picked.code).toBe(0);
    expect(JSON.parse(picked.stdout).primitives).toEqual([{ kind: 'tool', name: 'read', tags: ['read-only'] }]);
  });

  it.each([
    [[fixture('two-factories.js')], 'exports several server factories (createAdminServer, createPublicServer); pick one with --export NAME'],
    [
      [fixture('server-module.js'), '--export', 'createserver'],
      'has no export "createserver" (did you mean "createServer"?); it exports answer, asyncServer, brokenMetadataServer, createServer, metadata, notAServer, throwingServer',
    ],
    [[fixture('server-module.js'), '--export', 'answer'], 'export "answer" is not a function that creates an McpServer'],
    [[fixture('server-module.js'), '--export', 'throwingServer'], 'throwingServer() threw: database not configured'],
    [[fixture('server-module.js'), '--export', 'notAServer'], 'notAServer() did not return an McpServer of @modelcontextprotocol/sdk 1.32.x'],
    [[fixture('server-module.js'), '--export', 'asyncServer'], 'asyncServer() returned a Promise; it must return the McpServer itself'],
    [[fixture('bad-metadata-export.js')], 'metadata["tool:x"].groups[0]: Invalid input: expected string, received number'],
    [[fixture('non-object-metadata.js')], 'export "metadata": metadata must be an object keyed by "tool:NAME", "prompt:NAME", "resource:URI" or "template:NAME"'],
    [
      ['src/demo/who-sees-what.ts'],
      'exports no server factory; export "function createServer()" (or a default function) that returns an McpServer, or pass --export NAME (it exports formatViews, listAsCallers)',
    ],
  ])('names the module and the problem in one line for %j (exit 1)', async (argv, message) => {
    const [module, ...rest] = argv as [string, ...string[]];
    const result = await runInRepository(['manifest', '--server', module, ...rest]);
    expect(result).toEqual({ code: 1, stdout: '', stderr: `${module}: ${message}\n` });
  });

  it('lists every invalid _meta annotation, one line each, as the gate would refuse them', async () => {
    const result = await runInRepository(['manifest', '--server', fixture('server-module.js'), '--export', 'brokenMetadataServer']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const name = fixture('server-module.js');
    expect(result.stderr).toBe(
      [
        `${name}: tool "a": _meta["mcp-gate"].groups: Invalid input: expected array, received string`,
        `${name}: tool "b": _meta["mcp-gate"].version: Too small: expected string to have >=1 characters`,
        `${name}: tool "b": _meta["mcp-gate"]: Unrecognized key: "colour"`,
        '',
      ].join('\n'),
    );
  });

  it('reports a missing module like any missing input', async () => {
    expect(await runInRepository(['manifest', '--server', 'nowhere/server.js'])).toEqual({ code: 1, stdout: '', stderr: 'nowhere/server.js: no such file\n' });
  });

  it('reports a module that fails to load with the first line of its error', async () => {
    const module = fixture('throws-on-load.js');
    expect(await runInRepository(['manifest', '--server', module])).toEqual({ code: 1, stdout: '', stderr: `${module}: cannot load: MCP_DATABASE_URL is not set\n` });
  });

  it.each([
    [['manifest'], 'mcp-gate manifest: missing --server MODULE or --upstream-cmd "CMD ARGS" / --upstream-url URL; see "mcp-gate manifest --help"'],
    [['manifest', 'server.js'], 'mcp-gate manifest: unexpected argument "server.js"; see "mcp-gate manifest --help"'],
  ])('rejects a wrong command line %j (exit 2)', async (argv, message) => {
    expect(await runWith(argv)).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });
});

describe('--server for explain and diff', () => {
  it('explain --server gives the same table as explain --manifest with the printed manifest', async () => {
    const fromServer = await runInRepository([
      'explain',
      '--policy',
      'policies/demo.json',
      '--server',
      'src/demo/demo-server.ts',
      '--client',
      'claude-code',
      '--header',
      'x-canary=1',
    ]);
    const fromManifest = await runInRepository([
      'explain',
      '--policy',
      'policies/demo.json',
      '--manifest',
      'policies/demo.manifest.json',
      '--client',
      'claude-code',
      '--header',
      'x-canary=1',
    ]);
    expect(fromServer.code).toBe(0);
    expect(fromServer).toEqual(fromManifest);
  });

  it('diff --server reads the primitives from the module', async () => {
    const result = await runInRepository([
      'diff',
      'policies/canary-by-header.json',
      'policies/demo.json',
      '--server',
      fixture('two-factories.js'),
      '--export',
      'createPublicServer',
      '--client',
      'cursor',
    ]);
    expect(result).toEqual({ code: 0, stdout: 'No primitive appears or disappears (checked 1 client profile × 1 request variant, /mcp).\n', stderr: '' });
  });
});

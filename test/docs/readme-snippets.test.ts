// Every ```ts block of README.md as a user would run it: written to files inside the repository
// (so `mcp-gate`, `mcp-gate/sdk`, … resolve through the package's own "exports" to the build, as
// they do from node_modules once installed), type-checked and compiled by tsc, then run by plain
// node. A line `console.log(…); // → TEXT` promises that line of output.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDistOnce } from '../built-dist.js';
import { repositoryRoot } from './doc-commands.js';

/** Gitignored; outside tsconfig.json's "include", so a leftover never reaches `npm run typecheck`. */
const snippetDirectory = join(repositoryRoot, '.readme-snippets');
const tsc = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runNode(args: readonly string[], timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: repositoryRoot, timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      const killed = error?.killed ? `\nkilled after ${timeoutMs} ms` : '';
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr: stderr + killed });
    });
  });
}

const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match, index) => ({
  file: `snippet-${index + 1}`,
  line: readme.slice(0, match.index).split('\n').length,
  code: match[1]!,
}));

/** The output a snippet's `// → TEXT` comments promise, in order. */
const promisedOutput = (code: string) => [...code.matchAll(/console\.log\(.*\); \/\/ → (.*)$/gm)].map((match) => `${match[1]}\n`).join('');

let compiled: Ran;

beforeAll(async () => {
  // The snippets run against dist/, as an installed package's do: built once per run for every
  // file that needs it (test/built-dist.ts, `npm run build --noCheck`).
  expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
  rmSync(snippetDirectory, { recursive: true, force: true });
  mkdirSync(snippetDirectory);
  for (const snippet of snippets) writeFileSync(join(snippetDirectory, `${snippet.file}.ts`), snippet.code);
  const options = { rootDir: '.', outDir: 'out', noEmit: false, declaration: false, sourceMap: false, types: ['node'] };
  writeFileSync(join(snippetDirectory, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', compilerOptions: options, include: ['*.ts'] }));
  compiled = await runNode([tsc, '-p', join(snippetDirectory, 'tsconfig.json')], 60_000);
}, 180_000);

afterAll(() => rmSync(snippetDirectory, { recursive: true, force: true }));

describe('README.md TypeScript snippets', () => {
  it('are found', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(4);
  });

  it('type-check against the built package', () => {
    // tsc names the snippet file and line: snippet-N.ts(LINE,COL), N counting ```ts blocks from the top.
    expect(compiled.stdout + compiled.stderr).toBe('');
    expect(compiled.code).toBe(0);
  });

  for (const snippet of snippets) {
    it(`README.md:${snippet.line} runs to completion and prints what it promises`, async () => {
      const ran = await runNode([join(snippetDirectory, 'out', `${snippet.file}.js`)], 20_000);
      expect(ran.stderr).toBe('');
      expect(ran.stdout).toBe(promisedOutput(snippet.code));
      expect(ran.code).toBe(0);
    }, 30_000);
  }
});

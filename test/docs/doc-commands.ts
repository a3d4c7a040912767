// Finds every `$ mcp-gate …` example in README.md and docs/*.md and runs it in-process, so the
// docs cannot drift from what the CLI prints. The rules that map a shell line to `run(argv, io)`
// are all here, listed, so nothing is skipped or rewritten silently.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run, type CliIo } from '../../src/cli/run.js';

export const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** One `$ …` line of a fenced block, with the output printed under it. */
export interface DocCommand {
  /** `docs/cli.md:49`. */
  readonly where: string;
  readonly line: string;
  /** The lines under it, up to the next `$` line or the end of the block, trailing blank lines dropped. */
  readonly output: readonly string[];
}

export const documentedFiles = ['README.md', ...readdirSync(join(repositoryRoot, 'docs')).filter((file) => file.endsWith('.md')).sort().map((file) => `docs/${file}`)];

export function findDocCommands(file: string): DocCommand[] {
  const lines = readFileSync(join(repositoryRoot, file), 'utf8').split('\n');
  const commands: Array<{ where: string; line: string; output: string[] }> = [];
  let inBlock = false;
  let current: { where: string; line: string; output: string[] } | undefined;
  lines.forEach((text, index) => {
    if (text.startsWith('```')) {
      inBlock = !inBlock;
      current = undefined;
      return;
    }
    if (!inBlock) return;
    if (text.startsWith('$ ')) {
      current = { where: `${file}:${index + 1}`, line: text.slice(2), output: [] };
      commands.push(current);
    } else current?.output.push(text);
  });
  for (const command of commands) while (command.output.at(-1) === '') command.output.pop();
  return commands.filter((command) => /^(npm run build && )?mcp-gate\b/.test(command.line));
}

/**
 * Commands not run, each for a stated reason. `serve` listens until it is stopped, so its
 * examples (startup lines) are checked by the serve tests instead.
 */
export const excludedCommand = (line: string): string | undefined =>
  /^mcp-gate serve\b/.test(line) ? 'serve runs until stopped; its startup lines are pinned in test/serve' : undefined;

/**
 * Splits a shell line as sh would for these examples: single and double quotes, and `*` globs
 * expanded against the repository (sorted). `npm run build && ` is dropped: in-process, `dist/X.js`
 * is read from `src/X.ts` (see `docsIo`).
 */
export function toArgv(line: string): string[] {
  const words: string[] = [];
  const pattern = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (const match of line.replace(/^npm run build && /, '').matchAll(pattern)) {
    const [, single, double, bare] = match;
    if (bare !== undefined && bare.includes('*')) words.push(...expandGlob(bare));
    else words.push(single ?? double ?? bare!);
  }
  if (words[0] !== 'mcp-gate') throw new Error(`not an mcp-gate command: ${line}`);
  return words.slice(1);
}

function expandGlob(word: string): string[] {
  const slash = word.lastIndexOf('/');
  const directory = slash < 0 ? '' : word.slice(0, slash + 1);
  const namePattern = new RegExp(`^${word.slice(slash + 1).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  const matches = readdirSync(join(repositoryRoot, directory)).filter((name) => namePattern.test(name)).sort();
  if (matches.length === 0) throw new Error(`glob ${word} matches nothing`);
  return matches.map((name) => directory + name);
}

/**
 * Where a path the docs name is read from: the files the examples invent (`bad.json`,
 * `dist/server.js`) from test/docs/fixtures, two short names for shipped files, `dist/X.js` from
 * `src/X.ts` (the in-process CLI runs from source, so its server modules do too), else the repository.
 */
export function sourceOf(absolutePath: string): string {
  const path = relative(repositoryRoot, absolutePath);
  const aliases: Record<string, string> = {
    'demo.json': 'policies/demo.json',
    'demo.manifest.json': 'policies/demo.manifest.json',
    // Not under fixtures/dist: .gitignore drops every dist/ folder.
    'dist/server.js': 'test/docs/fixtures/invalid-metadata-server.js',
  };
  if (existsSync(join(fixtures, path))) return join(fixtures, path);
  if (aliases[path] !== undefined) return join(repositoryRoot, aliases[path]);
  const built = /^dist\/(.+)\.js$/.exec(path);
  if (built && existsSync(join(repositoryRoot, 'src', `${built[1]}.ts`))) return join(repositoryRoot, 'src', `${built[1]}.ts`);
  return absolutePath;
}

export interface DocRun {
  readonly code: number;
  /** stdout and stderr interleaved, as a terminal shows them. */
  readonly output: string;
}

export async function runDocCommand(line: string): Promise<DocRun> {
  const printed: string[] = [];
  const io: CliIo = {
    cwd: repositoryRoot,
    stdout: (text) => printed.push(text),
    stderr: (text) => printed.push(text),
    readFile: (path) => readFile(sourceOf(path), 'utf8'),
    importModule: (url) => import(pathToFileURL(sourceOf(fileURLToPath(url))).href) as Promise<Record<string, unknown>>,
  };
  const code = await run(toArgv(line), io);
  return { code, output: printed.join('') };
}

/**
 * Whether the documented output matches. Exact, except that a block may be shortened: a line
 * that is only `…` (indented or not) stands for lines left out, and then the lines shown must appear in the real output in
 * order (each line still exact).
 */
export function matchesDocumented(documented: readonly string[], actual: string): boolean {
  const actualLines = actual.replace(/\n$/, '').split('\n');
  const elided = (line: string) => line.trim() === '…';
  if (!documented.some(elided)) return documented.join('\n') === actualLines.join('\n');
  let next = 0;
  for (const line of documented) {
    if (elided(line)) continue;
    while (next < actualLines.length && actualLines[next] !== line) next++;
    if (next === actualLines.length) return false;
    next++;
  }
  return true;
}

// The package as `npm run build` makes it (dist/: the compiled src/ and the playground page),
// built once per `vitest run` for every file that uses the build (the README snippets, the spawned
// bin, the playground, the packed tarball), however many of them run and in whichever workers:
// the first to ask builds, the others wait for its result. A bin spawned from dist/ starts in half
// the CPU time of one run from src/ through tsx. A dist/ that a successful build left and nothing
// changed since is used as it is (see isFresh), so running one file again costs no build.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const distDirectory = join(repositoryRoot, 'dist');

/**
 * package.json's `build`, which the steps below follow (the pack test ships their output): when
 * that script changes, so must they. tsc runs with `--noCheck` (half its CPU time), because
 * `npm test`'s typecheck (`tsgo -p tsconfig.json --noEmit`, scripts/test.mjs) already type-checks
 * src/ under the same compiler options (tsconfig.build.json extends tsconfig.json and sets only where files go), and
 * the emit-only errors the build could add (declarations, output paths) `--noCheck` still reports.
 */
const buildScript = 'tsc -p tsconfig.build.json && node scripts/build-playground.mjs';
const buildSteps: readonly (readonly string[])[] = [
  [join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(repositoryRoot, 'tsconfig.build.json'), '--noCheck'],
  [join(repositoryRoot, 'scripts', 'build-playground.mjs')],
];

/** Runs one step with node; resolves with what it printed, '' when it succeeded silently. */
function runStep(args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: repositoryRoot, timeout: 120_000, encoding: 'utf8' }, (error, stdout, stderr) =>
      // A failure that printed nothing (killed, not started) must not read as success.
      resolve(error ? `node ${args.join(' ')} failed: ${stdout + stderr || String(error)}` : stdout),
    );
  });
}

async function buildDist(): Promise<string> {
  const { scripts } = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  if (scripts['build'] !== buildScript) return `test/built-dist.ts follows package.json's build script "${buildScript}", which is now "${scripts['build']}": update both`;
  pruneStaleOutputs();
  for (const step of buildSteps) {
    const output = await runStep(step);
    // build-playground.mjs reports its size on stderr; only a failure prints to stdout or fails.
    if (output !== '') return output;
  }
  return '';
}

/** Written after a build that printed nothing; in node_modules, so a fresh install always builds. */
const successStamp = join(repositoryRoot, 'node_modules', '.cache', 'mcp-gate', 'dist-build.ok');
const buildInputs = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build-playground.mjs'];
/** Folders whose every file the build reads: src/ (tsc and the page), the page's own sources, and the policy it preloads. */
const inputFolders = ['src', 'playground', 'policies'];
const pageFiles = ['playground/index.html', 'playground/playground.js'];

const sourcesOf = (folder: string) => readdirSync(join(repositoryRoot, folder), { recursive: true, encoding: 'utf8' }).map((path) => join(folder, path));

/** What the build writes into dist/: a .js and a .d.ts per source of src/, and the page. */
function expectedOutputs(): Set<string> {
  const compiled = readdirSync(join(repositoryRoot, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
    .flatMap((path) => [`${path.slice(0, -'.ts'.length)}.js`, `${path.slice(0, -'.ts'.length)}.d.ts`]);
  return new Set([...compiled, ...pageFiles].map((path) => join(distDirectory, path)));
}

/** Outputs of sources since deleted or renamed, and anything else a build would not write (a clean clone's dist/ has none). */
function staleOutputs(expected: ReadonlySet<string>): string[] {
  if (!existsSync(distDirectory)) return [];
  return readdirSync(distDirectory, { recursive: true, encoding: 'utf8' })
    .map((path) => join(distDirectory, path))
    .filter((path) => !expected.has(path) && statSync(path).isFile());
}

function pruneStaleOutputs(): void {
  for (const path of staleOutputs(expectedOutputs())) rmSync(path, { force: true });
}

/** Whether dist/ holds a successful build of every input as it is now: nothing newer than the stamp, no output missing, none left over. */
function isFresh(): boolean {
  if (!existsSync(successStamp)) return false;
  const built = statSync(successStamp).mtimeMs;
  const inputs = [...buildInputs, ...inputFolders.flatMap(sourcesOf)].map((path) => join(repositoryRoot, path));
  const expected = expectedOutputs();
  return inputs.every((input) => statSync(input).mtimeMs <= built) && [...expected].every((output) => existsSync(output)) && staleOutputs(expected).length === 0;
}

async function buildUnlessFresh(): Promise<string> {
  if (isFresh()) return '';
  const started = Date.now();
  const output = await buildDist();
  if (output === '') {
    mkdirSync(join(successStamp, '..'), { recursive: true });
    writeFileSync(successStamp, '');
    // Stamped with the build's start, so a source saved while the build ran counts as newer.
    utimesSync(successStamp, started / 1000, started / 1000);
  }
  return output;
}

async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`test/built-dist.ts: no dist/ build result in ${path} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function buildOnceForRun(runDirectory: string): Promise<string> {
  const claim = join(runDirectory, 'dist-build');
  const result = join(claim, 'output.txt');
  let builder = true;
  try {
    mkdirSync(claim); // atomic: exactly one worker of this run gets to build
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    builder = false;
  }
  if (builder) {
    writeFileSync(`${result}.partial`, await buildUnlessFresh());
    renameSync(`${result}.partial`, result);
  }
  await waitForFile(result, 150_000);
  return readFileSync(result, 'utf8');
}

/** Per run directory: files of one worker share modules (isolate: false), so they share the promise too. */
const builds = new Map<string, Promise<string>>();

/** Builds dist/ (once per run) and resolves with what the build printed: '' when it succeeded. */
export function buildDistOnce(): Promise<string> {
  const runDirectory = inject('runDirectory');
  let build = builds.get(runDirectory);
  if (build === undefined) builds.set(runDirectory, (build = buildOnceForRun(runDirectory)));
  return build;
}

/** The bin as installed: `node dist/cli/main.js` (call buildDistOnce first). */
export const builtBin = join(distDirectory, 'cli', 'main.js');

/** The playground page as built: index.html and playground.js (call buildDistOnce first). */
export const builtPage = join(distDirectory, 'playground');

// dist/ built once per `vitest run` for the files that use the package as built (the README
// snippets, the spawned bin), however many of them run and in whichever workers: the first to ask
// builds, the others wait for its result. A bin spawned from dist/ starts in half the CPU time of
// one run from src/ through tsx. A dist/ that a successful build left and nothing changed since
// is used as it is (see isFresh), so running one file again costs no build.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(repositoryRoot, 'node_modules', 'typescript', 'bin', 'tsc');

/** `npm run build` without its type check (`--noCheck`, half the CPU time): the sources are type-checked by `npm test`'s tsc, and the full build by test/package/pack.test.ts (prepack). */
function buildDist(): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsc, '-p', join(repositoryRoot, 'tsconfig.build.json'), '--noCheck'],
      { cwd: repositoryRoot, timeout: 120_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        // A failure that printed nothing (killed, not started) must not read as success.
        resolve(stdout + stderr || (error ? String(error) : '')),
    );
  });
}

/** Written after a build that printed nothing; in node_modules, so a fresh install always builds. */
const successStamp = join(repositoryRoot, 'node_modules', '.cache', 'mcp-gate', 'dist-build.ok');
const buildInputs = ['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((name) => join(repositoryRoot, name));

/** Whether dist/ holds a successful build of every source as it is now: no source or config newer than the stamp, no output missing. */
function isFresh(): boolean {
  if (!existsSync(successStamp)) return false;
  const built = statSync(successStamp).mtimeMs;
  const sources = readdirSync(join(repositoryRoot, 'src'), { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));
  return (
    buildInputs.every((input) => statSync(input).mtimeMs <= built) &&
    sources.every((path) => {
      const output = join(repositoryRoot, 'dist', path.slice(0, -'.ts'.length));
      return statSync(join(repositoryRoot, 'src', path)).mtimeMs <= built && existsSync(`${output}.js`) && existsSync(`${output}.d.ts`);
    })
  );
}

async function buildUnlessFresh(): Promise<string> {
  if (isFresh()) return '';
  const started = Date.now();
  const output = await buildDist();
  if (output === '') {
    mkdirSync(join(successStamp, '..'), { recursive: true });
    writeFileSync(successStamp, '');
    // Stamped with the build's start, so a source saved while tsc ran counts as newer.
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

/** Builds dist/ (once per run) and resolves with what tsc printed: '' when the build succeeded. */
export function buildDistOnce(): Promise<string> {
  const runDirectory = inject('runDirectory');
  let build = builds.get(runDirectory);
  if (build === undefined) builds.set(runDirectory, (build = buildOnceForRun(runDirectory)));
  return build;
}

/** The bin as installed: `node dist/cli/main.js` (call buildDistOnce first). */
export const builtBin = join(repositoryRoot, 'dist', 'cli', 'main.js');

// Run by test/package/pack.test.ts in one fresh node inside the scratch project (copied there, so
// every name resolves as the scratch project resolves it), instead of one node per check: takes a
// JSON list of checks as its argument and prints their results as one JSON array. A CLI check
// imports the installed bin's own module (node_modules/.bin/mcp-gate, resolved through its link)
// with that check's argv, and records the exit code and output it leaves, as a spawned bin would;
// a command that leaves a handle open (a server, a timer, a child) is named on stderr, which the
// test expects empty, and this process then exits instead of hanging until the test's timeout.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Which of these names resolve from here, as `name: yes|no` lines. */
function resolvable(names) {
  let lines = '';
  for (const name of names) {
    let found = 'yes';
    try {
      import.meta.resolve(name);
    } catch {
      found = 'no';
    }
    lines += `${name}: ${found}\n`;
  }
  return lines;
}

/** The type of one export of a module imported by its package name, or why the import failed. */
async function exportType(specifier, name) {
  try {
    return typeof (await import(specifier))[name];
  } catch (error) {
    return `import('${specifier}') failed: ${error}`;
  }
}

const bin = pathToFileURL(realpathSync(join(process.cwd(), 'node_modules', '.bin', 'mcp-gate'))).href;
let cliRuns = 0;
/** Every command checked returns well within this (the test's own timeout, 90 s, is for the whole run). */
const commandTimeoutMs = 30_000;

/** `mcp-gate …args` as the bin runs it: its module evaluated afresh with this argv, its output and exit code caught. */
async function cli(args) {
  const output = { stdout: '', stderr: '' };
  const writers = { stdout: process.stdout.write, stderr: process.stderr.write };
  const argv = process.argv;
  for (const stream of ['stdout', 'stderr'])
    process[stream].write = (chunk, encoding, callback) => {
      output[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      (typeof encoding === 'function' ? encoding : callback)?.();
      return true;
    };
  process.argv = [process.execPath, bin, ...args];
  process.exitCode = undefined;
  try {
    // A new query string evaluates the bin's module again. A command that never returns is named
    // (on the real stderr, which the test expects empty) and this process exits.
    let waiting;
    const stuck = new Promise((resolve) => (waiting = setTimeout(resolve, commandTimeoutMs, 'stuck')));
    const ran = await Promise.race([import(`${bin}?run=${++cliRuns}`), stuck]);
    clearTimeout(waiting);
    if (ran === 'stuck') {
      writers.stderr.call(process.stderr, `installed-checks.mjs: mcp-gate ${args.join(' ')} did not return within ${commandTimeoutMs} ms\n`);
      process.exit(0);
    }
    return { code: process.exitCode ?? 0, ...output };
  } catch (error) {
    // What node does when the bin's module throws: exit code 1, the error on stderr.
    return { code: 1, stdout: output.stdout, stderr: `${output.stderr}${error?.stack ?? error}\n` };
  } finally {
    process.stdout.write = writers.stdout;
    process.stderr.write = writers.stderr;
    process.argv = argv;
    process.exitCode = undefined;
  }
}

/** What keeps the event loop alive now, by kind (`TCPServerWrap`, `Timeout`, `ProcessWrap`, …) with counts. */
function activeResources() {
  const counts = new Map();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** The kinds of resource more numerous than in `before`, once they had 2 s to close (a child's exit, a socket's end). */
async function leftOpenSince(before) {
  let extra = [];
  for (let round = 0; round < 40; round++) {
    extra = [...activeResources()].filter(([kind, count]) => count > (before.get(kind) ?? 0)).map(([kind]) => kind);
    if (extra.length === 0) return extra;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return extra;
}

// process.stdin, stdout and stderr open their pipes when first used (the bin reads them lazily): before any count is taken.
for (const stream of [process.stdin, process.stdout, process.stderr]) void stream.fd;
const results = [];
let leftOpen = false;
for (const check of JSON.parse(process.argv[2])) {
  if (check.resolvable) results.push(resolvable(check.resolvable));
  else if (check.import) results.push(await exportType(check.import, check.export));
  else if (check.cli) {
    const before = activeResources();
    results.push(await cli(check.cli));
    const extra = await leftOpenSince(before);
    if (extra.length > 0) {
      leftOpen = true;
      process.stderr.write(`installed-checks.mjs: mcp-gate ${check.cli.join(' ')} returned with ${extra.join(', ')} still open\n`);
    }
  } else throw new Error(`installed-checks.mjs: unknown check ${JSON.stringify(check)}`);
}
process.stdout.write(`${JSON.stringify(results)}\n`);
// Whatever a command left open would keep this process alive: its name is on stderr already.
if (leftOpen) process.exit(0);

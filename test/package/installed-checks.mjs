// Run by test/package/pack.test.ts in one fresh node inside the scratch project (copied there, so
// every name resolves as the scratch project resolves it), instead of one node per check: takes a
// JSON list of checks as its argument and prints their results as one JSON array. A CLI check
// imports the installed bin's own module (node_modules/.bin/mcp-gate, resolved through its link)
// with that check's argv, and records the exit code and output it leaves, as a spawned bin would;
// a command that left a handle open keeps this process from exiting, which the test's timeout catches.
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
    await import(`${bin}?run=${++cliRuns}`); // a new query string evaluates the bin's module again
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

const results = [];
for (const check of JSON.parse(process.argv[2])) {
  if (check.resolvable) results.push(resolvable(check.resolvable));
  else if (check.import) results.push(await exportType(check.import, check.export));
  else if (check.cli) results.push(await cli(check.cli));
  else throw new Error(`installed-checks.mjs: unknown check ${JSON.stringify(check)}`);
}
process.stdout.write(`${JSON.stringify(results)}\n`);

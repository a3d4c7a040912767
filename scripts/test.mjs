// `npm test`: the typecheck and vitest side by side rather than one after the other, since the
// typecheck spends its time on the CPU while vitest's files wait on servers and child processes.
// The typecheck is tsgo (@typescript/native-preview, TypeScript's native compiler) on the same
// tsconfig.json as `npm run typecheck`'s tsc: the same diagnostics for about a quarter of the CPU
// time (5 s instead of 22 s from scratch, measured side by side), which on a 2-core machine is
// time vitest's files get. tsc 5.9 stays the compiler of the build, the editor and ESLint.
// vitest's output streams as it runs and its summary stays the last lines (CI reads
// "Tests N passed"); the typecheck's output is held and printed when it ends, before that summary
// in practice. The exit code is non-zero when either fails. Arguments go to vitest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const installed = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
const tsgoBin = installed('@typescript/native-preview/bin/tsgo');
const vitestBin = installed('vitest/vitest.mjs');

/** Runs `node <bin> …args`; resolves with the exit code (a signal counts as failure). */
function run(bin, args, stdio) {
  const child = spawn(process.execPath, [bin, ...args], { stdio });
  const exited = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(signal === null ? (code ?? 1) : 1));
  });
  return { child, exited };
}

const started = Date.now();
// Incremental: a rerun re-checks only what changed (under 1 s instead of 5 s of CPU). The state lives
// in node_modules, so a fresh install (CI's `npm ci`) always checks from scratch.
const tscArgs = ['-p', 'tsconfig.json', '--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/mcp-gate/typecheck-tsgo.tsbuildinfo'];
const tsc = run(tsgoBin, tscArgs, ['ignore', 'pipe', 'pipe']);
let tscOutput = '';
tsc.child.stdout.on('data', (chunk) => (tscOutput += chunk));
tsc.child.stderr.on('data', (chunk) => (tscOutput += chunk));

// Off a terminal (CI, a log file) vitest's output passes through line by line, and from its
// summary ("Test Files …") on it is held until tsc has answered, so the summary stays last even
// when tsc ends after vitest. At a terminal vitest keeps its own live display instead.
const holdSummary = !process.stdout.isTTY;
const vitest = run(vitestBin, ['run', ...process.argv.slice(2)], ['inherit', holdSummary ? 'pipe' : 'inherit', 'inherit']);
let held;
let partialLine = '';
if (holdSummary) {
  vitest.child.stdout.setEncoding('utf8');
  vitest.child.stdout.on('data', (chunk) => {
    if (held !== undefined) return void (held += chunk);
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop();
    const summary = lines.findIndex((line) => /\bTest Files\b/.test(line));
    if (summary === -1) return void process.stdout.write(lines.map((line) => `${line}\n`).join(''));
    process.stdout.write(
      lines
        .slice(0, summary)
        .map((line) => `${line}\n`)
        .join(''),
    );
    held =
      lines
        .slice(summary)
        .map((line) => `${line}\n`)
        .join('') + partialLine;
    partialLine = '';
  });
}

const tscCode = await tsc.exited;
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (tscCode === 0) process.stderr.write(`typecheck (tsgo --noEmit): no errors, ${seconds} s\n`);
else process.stderr.write(`typecheck (tsgo --noEmit) failed with exit code ${tscCode} after ${seconds} s:\n${tscOutput}\n`);
// Ctrl-C reaches both children through the process group.
const vitestCode = await vitest.exited;
process.stdout.write(partialLine + (held ?? ''));
process.exitCode = vitestCode !== 0 ? vitestCode : tscCode;

// `npm test`: the typecheck (tsc --noEmit) and vitest side by side rather than one after the
// other, since tsc spends ~20 s on one core while vitest's files wait on servers and child
// processes. vitest's output streams as it runs and its summary stays the last lines (CI reads
// "Tests N passed"); tsc's output is held and printed when tsc ends, before that summary in
// practice. The exit code is non-zero when either fails. Arguments go to vitest.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const installed = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
const tscBin = installed('typescript/bin/tsc');
const vitestBin = installed('vitest/vitest.mjs');

/** Runs `node <bin> …args`; resolves with the exit code (a signal counts as failure). */
function run(bin, args, stdio) {
  const child = spawn(process.execPath, [bin, ...args], { stdio });
  const exited = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(signal === null ? code ?? 1 : 1));
  });
  return { child, exited };
}

const started = Date.now();
const tsc = run(tscBin, ['-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], ['ignore', 'pipe', 'pipe']);
let tscOutput = '';
tsc.child.stdout.on('data', (chunk) => (tscOutput += chunk));
tsc.child.stderr.on('data', (chunk) => (tscOutput += chunk));
const typechecked = tsc.exited.then((code) => {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (code === 0) process.stderr.write(`typecheck (tsc --noEmit): no errors, ${seconds} s\n`);
  else process.stderr.write(`typecheck (tsc --noEmit) failed with exit code ${code} after ${seconds} s:\n${tscOutput}\n`);
  return code;
});

const vitest = run(vitestBin, ['run', ...process.argv.slice(2)], 'inherit');
// Ctrl-C reaches both children through the process group.
const [vitestCode, tscCode] = await Promise.all([vitest.exited, typechecked]);
process.exitCode = vitestCode !== 0 ? vitestCode : tscCode;

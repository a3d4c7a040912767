#!/usr/bin/env node
// The `mcp-gate` bin: hands argv, the real process streams and a stop signal to `run`, which does
// all the work (and is what the tests drive). Setting exitCode rather than calling exit lets
// output flush.
import { readFile } from 'node:fs/promises';
import { run } from './run.js';

// SIGINT/SIGTERM ask a long-running command (serve) to stop cleanly; `once`, so a second Ctrl-C
// falls back to Node's default and ends a stop that hangs.
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

process.exitCode = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFile(path, 'utf8'),
  cwd: process.cwd(),
  signal: stop.signal,
  stdio: { input: process.stdin, output: process.stdout },
});

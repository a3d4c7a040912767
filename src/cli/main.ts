#!/usr/bin/env node
// The `mcp-gate` bin: hands argv and the real process streams to `run`, which does all the work
// (and is what the tests drive). Setting exitCode rather than calling exit lets output flush.
import { readFile } from 'node:fs/promises';
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFile(path, 'utf8'),
  cwd: process.cwd(),
});

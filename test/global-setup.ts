// vitest's globalSetup: a scratch directory for this one run, shared by every test file's worker
// (see test/built-dist.ts), removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A directory that lives exactly as long as this `vitest run`. */
    runDirectory: string;
  }
}

export default function setup(project: TestProject): () => void {
  const runDirectory = mkdtempSync(join(tmpdir(), 'mcp-gate-test-run-'));
  project.provide('runDirectory', runDirectory);
  return () => rmSync(runDirectory, { recursive: true, force: true });
}

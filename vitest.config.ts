import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One scratch directory per run, through which files build dist/ once (test/built-dist.ts).
    globalSetup: ['test/global-setup.ts'],
    // Servers in adapter tests bind 127.0.0.1; keep every wait bounded.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Test files share a worker's module cache instead of importing the SDKs, zod and fast-check
    // afresh for each of ~100 files (that re-import was a fifth of the run). It is safe because no
    // test file changes process-wide state for the next: module hooks and the v1-SDK-unresolvable
    // trick run in child processes (test/testing/runners), spies are restored, nothing is mocked.
    // A file that must not share modules belongs in a project of its own with `isolate: true`.
    isolate: false,
    // vitest's default leaves one core to its main process (one worker on a 2-core machine), but
    // here the main process is nearly idle and many files wait on child processes: use them all.
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ['default'],
  },
});

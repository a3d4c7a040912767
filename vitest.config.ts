import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that take longest, longest first (wall time of each file, its imports and hooks
 * included, in a one-worker run with per-file CPU logged). Workers take the next file as they
 * free up, so a long file that starts late makes one worker finish alone while the others idle;
 * started first, the long files overlap with the many short ones and the workers end together.
 * vitest's own order (by the durations it caches, else by file
 * size) decides among the rest and after a local run; a fresh clone, as in CI, has no cache.
 */
const longestFirst = [
  'test/testing/server-invariants.test.ts',
  'test/package/pack.test.ts',
  'test/proxy/supervision.test.ts',
  'test/playground/playground.browser.test.ts',
  'test/docs/readme-snippets.test.ts',
  'test/testing/runners.test.ts',
  'test/testing/check-gate-invariants.test.ts',
  'test/properties/decision-cache.test.ts',
  'test/properties/check-policy.test.ts',
  'test/playground/playground-command.test.ts',
  'test/properties/diff-exhaustive.test.ts',
  'test/fleet/replicas.test.ts',
  'test/server/scale-out.test.ts',
  'test/hostile/requests.test.ts',
  'test/otel/serve-otel.test.ts',
  'test/package/public-surface.test.ts',
  'test/serve/process.test.ts',
  'test/proxy/everything.test.ts',
  'test/proxy/recording-stdio.test.ts',
  'test/proxy/stdio-2026-refused.test.ts',
  'test/proxy/era-bridge-spawned.test.ts',
  'test/proxy/stdio-2026-upstream-listen.test.ts',
];

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = longestFirst.indexOf(relative(file.project.config.root, file.moduleId).replaceAll('\\', '/'));
      return index === -1 ? longestFirst.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    // here the main process is nearly idle and many files wait: on child processes, on a browser,
    // on flagd's 5 s file poll (flagd-file, replicas), on servers starting. One worker more than
    // cores keeps every core busy while a file waits; it costs one more import of the SDKs.
    maxWorkers: Math.max(3, availableParallelism() + 1),
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
  },
});

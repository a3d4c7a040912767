import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('checkGateInvariants under other runners', () => {
  it('passes and fails under node:test exactly as under vitest', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/testing/runners/node-test.fixture.ts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stdout, run.stderr).toContain('# pass 3');
    expect(run.stdout).toContain('# fail 0');
    expect(run.status).toBe(0);
  });
});

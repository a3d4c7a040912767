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

  it('imports and checks a v2 server without the v1 SDK installed, and names the package where a feature needs it', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--import', './test/testing/runners/block-v1-sdk.mjs', 'test/testing/runners/without-v1-sdk.fixture.ts'],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^v2 check: adapter server, \d+ requests$/m);
    const missing = (feature: string) => `${feature}: PolicyOptionError: ${feature} needs @modelcontextprotocol/sdk 1.x (the v1 SDK), which is not installed`;
    expect(run.stdout).toContain(missing('capabilitiesSeenByServer'));
    expect(run.stdout).toContain(missing('connectAsCaller'));
    expect(run.stdout).toContain("createRegistryServer: PolicyOptionError: createRegistryServer with adapter 'sdk' needs @modelcontextprotocol/sdk 1.x");
  });
});

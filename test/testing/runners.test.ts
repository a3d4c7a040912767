import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs node with these arguments in the repository to completion (killed after 60 s); never rejects. */
function runNode(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 }, (_error, stdout, stderr) =>
      resolve({ status: child.exitCode, stdout, stderr }),
    );
  });
}

// Concurrent: each test waits on its own child process (tsx compiling and loading the kit).
describe.concurrent('checkGateInvariants under other runners', () => {
  it('passes and fails under node:test exactly as under vitest', async ({ expect }) => {
    const run = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', 'test/testing/runners/node-test.fixture.ts']);
    expect(run.stdout, run.stderr).toContain('# pass 3');
    expect(run.stdout).toContain('# fail 0');
    expect(run.status).toBe(0);
  }, 60_000);

  it('imports and checks a v2 server without the v1 SDK installed, and names the package where a feature needs it', async ({ expect }) => {
    const run = await runNode(['--import', 'tsx', '--import', './test/testing/runners/block-v1-sdk.mjs', 'test/testing/runners/without-v1-sdk.fixture.ts']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^v2 check: adapter server, \d+ requests$/m);
    const missing = (feature: string) => `${feature}: PolicyOptionError: ${feature} needs @modelcontextprotocol/sdk 1.x (the v1 SDK), which is not installed`;
    expect(run.stdout).toContain(missing('capabilitiesSeenByServer'));
    expect(run.stdout).toContain(missing('connectAsCaller'));
    expect(run.stdout).toContain("createRegistryServer: PolicyOptionError: createRegistryServer with adapter 'sdk' needs @modelcontextprotocol/sdk 1.x");
  }, 60_000);
});

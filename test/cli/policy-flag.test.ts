// `serve --policy-flag` and `proxy --policy-flag` in-process, with the real OpenFeature SDK and
// flagd's in-process provider: a flag file through flagd's own file sync, and flagd's sync
// protocol from a stand-in service on 127.0.0.1 (test/cli/policy-flag-sync-server.ts).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { unwatchFile, watchFile } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { run } from '../../src/cli/run.js';
import { buildDistOnce, builtBin } from '../built-dist.js';
import { connectClient, startServe, toolNames, waitFor, type RunningServe } from '../serve/harness.js';
import { useTemporaryDirectory } from '../serve/temporary-directory.js';
import { startProxy, type RunningProxy } from '../proxy/harness.js';
import { runWith } from './memory-io.js';
import { startFlagdSyncServer } from './policy-flag-sync-server.js';

const showEverything = { version: 1, default: 'allow', rules: [] };
const hideCanary = { version: 1, default: 'allow', rules: [{ id: 'no-canary', effect: 'deny', appliesTo: { groups: ['canary'] }, when: true }] };
const invalidPolicy = { version: 1, default: 'allow', rules: [{ id: 'typo', effect: 'alow' }] };
const revisionOf = (document: unknown) => compilePolicy(document).revision;

/** A flagd flag file: the policy flag, and one other flag the policy does not read. */
function flagFile(policy: unknown) {
  return {
    flags: {
      'mcp-policy': { state: 'ENABLED', defaultVariant: 'current', variants: { current: policy } },
      'new-search': { state: 'ENABLED', defaultVariant: 'off', variants: { on: true, off: false } },
    },
  };
}

const directory = useTemporaryDirectory();
const running: Array<RunningServe | RunningProxy> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((serving) => serving.stop()));
});

/** How many listeners the stat watcher Node keeps for `path` has, besides the one this call adds. */
function fileWatchers(path: string): number {
  const probe = () => undefined;
  const count = watchFile(path, { persistent: false }, probe).listenerCount('change') - 1;
  unwatchFile(path, probe);
  return count;
}

/** A port on 127.0.0.1 nothing listens on (it did a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `mcp-gate serve …` in-process until it fails: its exit code and stderr. */
async function serveFails(argv: readonly string[]): Promise<{ code: number; stderr: string }> {
  const err: string[] = [];
  const controller = new AbortController();
  const code = await run(['serve', '--port', '0', ...argv], {
    cwd: directory.path('.'),
    stdout: () => undefined,
    stderr: (text) => err.push(text),
    readFile: (path) => readFile(path, 'utf8'),
    signal: controller.signal,
  });
  controller.abort();
  return { code, stderr: err.join('') };
}

describe('--policy-flag options', () => {
  it.each([
    [['--policy', 'p.json', '--policy-flag', 'mcp-policy', '--flagd-file', 'f.json'], 'pass either --policy FILE or --policy-flag KEY, not both'],
    [['--policy-flag', 'mcp-policy'], "--policy-flag needs one flag source: --flagd-file PATH (offline) or --flagd-host HOST (flagd's sync service)"],
    [
      ['--policy-flag', 'mcp-policy', '--flagd-file', 'f.json', '--flagd-host', 'flagd'],
      "--policy-flag needs one flag source: --flagd-file PATH (offline) or --flagd-host HOST (flagd's sync service)",
    ],
    [['--policy', 'p.json', '--flagd-port', '8015'], '--flagd-port is for --flagd-host HOST'],
    [['--policy', 'p.json', '--flagd-poll-interval', '100'], '--flagd-poll-interval is for --flagd-file PATH'],
    [
      ['--policy', 'p.json', '--flagd-file', 'f.json', '--flagd-host', 'flagd'],
      "a policy file needs one flag source: --flagd-file PATH (offline) or --flagd-host HOST (flagd's sync service)",
    ],
    [['--policy-flag', 'mcp-policy', '--flagd-file', 'f.json', '--flagd-port', '8015'], '--flagd-port is for --flagd-host; --flagd-file reads a file'],
    [['--policy-flag', 'mcp-policy', '--flagd-host', 'flagd', '--flagd-poll-interval', '100'], '--flagd-poll-interval is for --flagd-file; the sync service pushes changes'],
    [['--policy-flag', 'mcp-policy', '--flagd-host', 'flagd', '--flagd-cert', 'ca.pem'], '--flagd-cert is the CA for --flagd-tls; pass --flagd-tls too'],
    [['--policy-flag', 'mcp-policy', '--flagd-host', 'flagd', '--flagd-port', '70000'], '--flagd-port must be a whole number from 1 to 65535, got "70000"'],
    [['--policy-flag', 'mcp-policy', '--flagd-file', 'f.json', '--flagd-poll-interval', '5'], '--flagd-poll-interval must be a whole number from 10 to 3600000, got "5"'],
    [['--policy-flag', 'mcp-policy', '--flagd-file', 'f.json', '--watch'], '--watch follows a policy file; --policy-flag follows its flag without it'],
    [['--policy-flag', ' ', '--flagd-file', 'f.json'], '--policy-flag needs a flag key'],
  ])('serve %j: exit 2, %s', async (argv, message) => {
    const result = await runWith(['serve', ...argv]);
    expect([result.code, result.stderr]).toEqual([2, `mcp-gate serve: ${message}\n`]);
  });

  it('are proxy options too, read the same way', async () => {
    const result = await runWith(['proxy', '--policy', 'p.json', '--policy-flag', 'mcp-policy', '--upstream-url', 'http://127.0.0.1:1/mcp']);
    expect([result.code, result.stderr]).toEqual([2, 'mcp-gate proxy: pass either --policy FILE or --policy-flag KEY, not both\n']);
    const help = await runWith(['proxy', '--help']);
    expect(help.stdout).toContain('\n       mcp-gate proxy --policy-flag KEY (--flagd-file PATH [--flagd-poll-interval MS] | --flagd-host HOST');
  });
});

describe('serve --policy-flag at startup', () => {
  it('fails with exit 1 and one message naming the file and the flag when the flag cannot give a policy', async () => {
    const flags = await directory.write('flags.json', {
      flags: { ...flagFile(invalidPolicy).flags, text: { state: 'ENABLED', defaultVariant: 'a', variants: { a: 'not a policy' } } },
    });
    const failures = await Promise.all([
      serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', 'missing.json']),
      serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', await directory.writeText('broken.json', '{"flags": {')]),
      serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', await directory.write('policy.json', showEverything)]),
      serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', await directory.write('schema.json', { flags: { 'mcp-policy': { variants: { a: {} } } } })]),
      serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', flags]),
      serveFails(['--policy-flag', 'nope', '--flagd-file', flags]),
      serveFails(['--policy-flag', 'text', '--flagd-file', flags]),
    ]);
    expect(failures).toEqual([
      { code: 1, stderr: 'missing.json: no such file\n' },
      { code: 1, stderr: "broken.json:1:12: invalid JSON: Expected property name or '}'\n" },
      // A policy given as the flag file by mistake: flagd accepts any object (it logs the schema problems at debug level).
      { code: 1, stderr: "policy.json: flag mcp-policy: flag evaluation failed (FLAG_NOT_FOUND): flag 'mcp-policy' not found\n" },
      {
        code: 1,
        stderr:
          "schema.json: flagd cannot load this flag file: invalid flagd flag configuration (/flags/mcp-policy: must have required property 'state'; /flags/mcp-policy: must match a schema in anyOf)\n",
      },
      { code: 1, stderr: expect.stringMatching(/^flags\.json: flag mcp-policy: rules\[0\]\.effect: .+\n$/) },
      { code: 1, stderr: "flags.json: flag nope: flag evaluation failed (FLAG_NOT_FOUND): flag 'nope' not found\n" },
      { code: 1, stderr: expect.stringMatching(/^flags\.json: flag text: flag evaluation failed \(TYPE_MISMATCH\).*\n$/) },
    ]);
    // Every provider that started was closed: no listener of flagd's file sync is left on the file.
    expect(fileWatchers(flags)).toBe(0);
  });

  it('closes the provider when another input fails', async () => {
    const flags = await directory.write('flags.json', flagFile(showEverything));
    const failed = await serveFails(['--policy-flag', 'mcp-policy', '--flagd-file', flags, '--server', 'missing-module.js']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/missing-module\.js/);
    expect(fileWatchers(flags)).toBe(0);
  });

  it("fails with exit 1 naming the address when flagd's sync service cannot be reached", async () => {
    const port = await closedPort();
    const failed = await serveFails(['--policy-flag', 'mcp-policy', '--flagd-host', '127.0.0.1', '--flagd-port', String(port)]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(new RegExp(`^mcp-gate serve: cannot sync flags from flagd at 127\\.0\\.0\\.1:${port}: .+\\n$`));
  });
});

describe('mcp-gate serve --policy-flag (the built bin)', () => {
  it('exits 1 when flagd cannot be reached at startup, instead of reconnecting for ever', { timeout: 300_000 }, async () => {
    expect(await buildDistOnce(), 'npm run build --noCheck').toBe('');
    const port = await closedPort();
    const child = spawn(process.execPath, [builtBin, 'serve', '--policy-flag', 'mcp-policy', '--flagd-host', '127.0.0.1', '--flagd-port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Bounded from the error line, not from the spawn: a loaded machine may take long to start node.
    await waitFor('the error line', () => (stderr.includes('\n') || child.exitCode !== null ? true : undefined), 120_000);
    const code = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve('still running 20 s after its error'), 20_000))]);
    child.kill('SIGKILL');
    expect([code, stderr]).toEqual([1, expect.stringMatching(new RegExp(`^mcp-gate serve: cannot sync flags from flagd at 127\\.0\\.0\\.1:${port}: .+\\n$`))]);
  });
});

describe('serve --policy-flag --flagd-file', () => {
  it('serves the flag, follows the file at the poll interval, and keeps the revision in force through every kind of bad change', async () => {
    const flags = await directory.write('flags.json', flagFile(showEverything));
    const log = directory.path('decisions.jsonl');
    const serving = await startServe(['--policy-flag', 'mcp-policy', '--flagd-file', flags, '--flagd-poll-interval', '20', '--decision-log', log]);
    running.push(serving);
    const [first, second] = [revisionOf(showEverything), revisionOf(hideCanary)];
    expect(serving.stderr()).toContain(`mcp-gate serve: policy flag mcp-policy (revision ${first}) in front of the demo server: 13 primitives\n`);
    expect(serving.stderr()).toContain(`mcp-gate serve: following flag mcp-policy from flagd file ${flags} (checked every 20 ms)\n`);
    // flagd's file sync listens on the stat watcher the CLI started first, which sets the interval.
    expect(fileWatchers(flags)).toBe(2);
    const client = await connectClient(serving.url);
    expect(await toolNames(client)).toEqual(['search', 'deploy_preview', 'insights']);

    // Makes a change, then waits for `text` in what serve writes from then on.
    const changeSays = async (change: () => Promise<unknown>, text: string) => {
      const mark = serving.stderr().length;
      await change();
      await waitFor(JSON.stringify(text), () => (serving.stderr().slice(mark).includes(text) ? true : undefined), 15_000);
    };
    await changeSays(() => directory.write('flags.json', flagFile(hideCanary)), `mcp-gate serve: flag mcp-policy changed: revision ${first} → ${second}\n`);
    expect(await toolNames(client)).toEqual(['search', 'insights']);
    // The watch's own first read (and the provider's Ready) found the revision in force: it said nothing.
    expect(serving.stderr().match(/ changed: revision /g)).toHaveLength(1);

    await changeSays(
      () => directory.write('flags.json', flagFile(invalidPolicy)),
      `mcp-gate serve: flag mcp-policy not applied (invalid_document); still serving revision ${second}\nflag mcp-policy: rules[0].effect: `,
    );
    await changeSays(
      () => directory.writeText('flags.json', '{"flags": '),
      `mcp-gate serve: flagd: Error reading file: ParseError: invalid flagd flag configuration; still serving revision ${second}\n`,
    );
    await changeSays(
      () => directory.write('flags.json', { flags: {} }),
      `mcp-gate serve: flag mcp-policy not applied (flag_error); still serving revision ${second}\nflag mcp-policy: flag evaluation failed (FLAG_NOT_FOUND)`,
    );
    expect(await toolNames(client)).toEqual(['search', 'insights']);

    await changeSays(() => directory.write('flags.json', flagFile(showEverything)), `mcp-gate serve: flag mcp-policy changed: revision ${second} → ${first}\n`);
    expect(await toolNames(client)).toEqual(['search', 'deploy_preview', 'insights']);
    await client.close();

    expect(await serving.stop()).toBe(0);
    expect(fileWatchers(flags)).toBe(0);
    const events = (await readFile(log, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['event'] !== undefined);
    expect(events.map(({ event, flag, policyRevision, problem }) => ({ event, flag, policyRevision, problem }))).toEqual([
      { event: 'policy_flag_error', flag: 'mcp-policy', policyRevision: second, problem: 'invalid_document' },
      { event: 'policy_flag_error', flag: 'mcp-policy', policyRevision: second, problem: 'flagd' },
      { event: 'policy_flag_error', flag: 'mcp-policy', policyRevision: second, problem: 'flag_error' },
    ]);
    expect(events[1]!['message']).toBe('flagd: Error reading file: ParseError: invalid flagd flag configuration');
  });
});

describe('serve --policy-flag --flagd-host', () => {
  it("syncs the flag from flagd's sync service with the selector, and follows what it pushes", async () => {
    const sync = await startFlagdSyncServer(flagFile(showEverything));
    try {
      const serving = await startServe(['--policy-flag', 'mcp-policy', '--flagd-host', '127.0.0.1', '--flagd-port', String(sync.port), '--flagd-selector', 'policies']);
      running.push(serving);
      expect(sync.requests).toEqual([{ selector: 'policies', selectorHeader: 'policies' }]);
      expect(serving.stderr()).toContain(`mcp-gate serve: following flag mcp-policy from flagd sync 127.0.0.1:${sync.port} (selector "policies")\n`);
      const client = await connectClient(serving.url);
      expect(await toolNames(client)).toEqual(['search', 'deploy_preview', 'insights']);
      sync.push(flagFile(hideCanary));
      await waitFor(
        'the pushed revision',
        () => (serving.stderr().includes(`changed: revision ${revisionOf(showEverything)} → ${revisionOf(hideCanary)}\n`) ? true : undefined),
        15_000,
      );
      expect(await toolNames(client)).toEqual(['search', 'insights']);
      sync.push(flagFile(invalidPolicy));
      await waitFor(
        'the rejection',
        () => (serving.stderr().includes(`not applied (invalid_document); still serving revision ${revisionOf(hideCanary)}\n`) ? true : undefined),
        15_000,
      );
      // flagd goes away: the replica keeps its policy and says so.
      await sync.close();
      await waitFor(
        'the lost connection',
        () =>
          serving.stderr().includes(`mcp-gate serve: flagd: Connection error, attempting to reconnect; still serving revision ${revisionOf(hideCanary)}\n`) ? true : undefined,
        15_000,
      );
      expect(await toolNames(client)).toEqual(['search', 'insights']);
      await client.close();
      expect(await running.pop()!.stop()).toBe(0);
    } finally {
      await sync.close();
    }
  });
});

describe('proxy --policy-flag --flagd-file', () => {
  it('gates the upstream by the flag and follows the file', async () => {
    // The upstream: the demo server, served as it is (everything visible, stateless).
    const upstream = await startServe(['--policy', await directory.write('everything.json', showEverything), '--stateless', '--on-missing-capabilities', 'allow']);
    running.push(upstream);
    const flags = await directory.write('flags.json', flagFile(showEverything));
    const proxy = await startProxy(['--policy-flag', 'mcp-policy', '--flagd-file', flags, '--flagd-poll-interval', '20', '--upstream-url', upstream.url.href]);
    running.push(proxy);
    const client = await connectClient(proxy.url);
    expect(await toolNames(client)).toContain('deploy_preview');
    // By name: the upstream's own gate does not pass its _meta["mcp-gate"] groups on.
    const hideDeploy = { version: 1, default: 'allow', rules: [{ id: 'no-deploy', effect: 'deny', appliesTo: { names: ['deploy_*'] }, when: true }] };
    await directory.write('flags.json', flagFile(hideDeploy));
    await waitFor(
      'the new revision',
      () => (proxy.stderr().includes(`mcp-gate proxy: flag mcp-policy changed: revision ${revisionOf(showEverything)} → ${revisionOf(hideDeploy)}\n`) ? true : undefined),
      15_000,
    );
    expect(await toolNames(client)).not.toContain('deploy_preview');
    await client.close();
  });
});

// Flags inside policies end to end: `serve --policy-flag` with flagd's in-process provider on a
// flag file (the real flagd evaluator and file sync) resolves the flags the policy reads from
// the same file; so does `serve --policy FILE --flagd-file PATH` (and `proxy`) for a policy
// file's flags. A policy file that reads flags without a flagd source is refused (exit 1), and a
// flagd source for a policy file that reads none is a usage error (exit 2).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { everythingCommand, startProxy } from '../proxy/harness.js';
import { connectClient, startServe, toolNames, waitFor, type RunningServe } from '../serve/harness.js';
import { useTemporaryDirectory } from '../serve/temporary-directory.js';
import { createMemoryIo, json } from './memory-io.js';

/** Deploy tools only while flag `deploys` is on; its default (off) hides them when flagd cannot answer. */
const deploysByFlag = {
  version: 1,
  default: 'allow',
  flags: { deploys: { default: false } },
  rules: [{ id: 'deploys-off', effect: 'deny', appliesTo: { names: ['deploy_*'] }, when: { '!': { var: 'flags.deploys' } } }],
};

/** Only the flag the policy reads: the policy itself comes from a file. */
function deploysFlagFile(deploys: 'on' | 'off') {
  return { flags: { deploys: { state: 'ENABLED', defaultVariant: deploys, variants: { on: true, off: false } } } };
}

/** Lists until `name` is among the tools; bounded: 250 tries 20 ms apart (the provider polls the file every 20 ms). */
async function toolsOnceListed(client: Client, name: string): Promise<string[]> {
  let names: string[] = [];
  for (let attempt = 0; attempt < 250 && !names.includes(name); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    names = await toolNames(client);
  }
  return names;
}

function flagFile(deploys: 'on' | 'off') {
  return {
    flags: {
      'mcp-policy': { state: 'ENABLED', defaultVariant: 'current', variants: { current: deploysByFlag } },
      deploys: { state: 'ENABLED', defaultVariant: deploys, variants: { on: true, off: false } },
    },
  };
}

const directory = useTemporaryDirectory();
const running: Array<Pick<RunningServe, 'stop'>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((serving) => serving.stop()));
});

describe('serve with a policy that reads flags', () => {
  it('resolves them through the flagd source of --policy-flag, following flips in the flag file', async () => {
    const flags = await directory.write('flags.json', flagFile('off'));
    const serving = await startServe(['--policy-flag', 'mcp-policy', '--flagd-file', flags, '--flagd-poll-interval', '20']);
    running.push(serving);
    const client = await connectClient(serving.url);
    expect(await toolNames(client)).not.toContain('deploy_preview');
    await directory.write('flags.json', flagFile('on'));
    // The provider polls the file every 20 ms; bounded: 250 tries.
    let names: string[] = [];
    for (let attempt = 0; attempt < 250 && !names.includes('deploy_preview'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      names = await toolNames(client);
    }
    expect(names).toContain('deploy_preview');
    await client.close();
  });

  it('sends the open session one tools/list_changed when a flag the policy reads flips in the file', async () => {
    // flagd emits ConfigurationChanged; the gate re-resolves the session's flags while the
    // --policy-flag watch re-applies the (unchanged) policy on the same event.
    const flags = await directory.write('flags.json', flagFile('off'));
    const serving = await startServe(['--policy-flag', 'mcp-policy', '--flagd-file', flags, '--flagd-poll-interval', '20']);
    running.push(serving);
    const client = await connectClient(serving.url);
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notified++);
    expect(await toolNames(client)).not.toContain('deploy_preview');
    await directory.write('flags.json', flagFile('on'));
    await waitFor('tools/list_changed', () => (notified > 0 ? true : undefined));
    expect(await toolNames(client)).toContain('deploy_preview');
    expect(notified).toBe(1);
    await client.close();
  });

  it('resolves the flags of a policy file through --flagd-file, following flips in the flag file', async () => {
    const policy = await directory.write('deploys-policy.json', deploysByFlag);
    const flags = await directory.write('deploys-flags.json', deploysFlagFile('off'));
    const serving = await startServe(['--policy', policy, '--flagd-file', flags, '--flagd-poll-interval', '20']);
    running.push(serving);
    expect(serving.stderr()).toMatch(/mcp-gate serve: resolving the flags of \S*deploys-policy\.json through flagd file \S*deploys-flags\.json \(checked every 20 ms\)\n/);
    const client = await connectClient(serving.url);
    const before = await toolNames(client);
    expect(before).toContain('insights');
    expect(before).not.toContain('deploy_preview');
    await directory.write('deploys-flags.json', deploysFlagFile('on'));
    expect(await toolsOnceListed(client, 'deploy_preview')).toContain('deploy_preview');
    // A file flagd cannot parse is said on stderr; the provider keeps its last flags.
    await directory.writeText('deploys-flags.json', '{"flags": {');
    await waitFor('a flagd line on stderr', () => (serving.stderr().includes('mcp-gate serve: flagd: ') ? true : undefined));
    expect(await toolNames(client)).toContain('deploy_preview');
    await client.close();
  });

  it('does the same for proxy, in front of a real upstream', async () => {
    const echoByFlag = {
      version: 1,
      default: 'allow',
      flags: { echoes: { default: false } },
      rules: [{ id: 'echoes-off', effect: 'deny', appliesTo: { names: ['echo'] }, when: { '!': { var: 'flags.echoes' } } }],
    };
    const flagsOf = (echoes: 'on' | 'off') => ({ flags: { echoes: { state: 'ENABLED', defaultVariant: echoes, variants: { on: true, off: false } } } });
    const policy = await directory.write('echo-policy.json', echoByFlag);
    const flags = await directory.write('echo-flags.json', flagsOf('off'));
    const proxying = await startProxy(['--policy', policy, '--flagd-file', flags, '--flagd-poll-interval', '20', '--upstream-cmd', everythingCommand]);
    running.push(proxying);
    const client = await connectClient(proxying.url);
    expect(await toolNames(client)).not.toContain('echo');
    await directory.write('echo-flags.json', flagsOf('on'));
    expect(await toolsOnceListed(client, 'echo')).toContain('echo');
    await client.close();
  });

  it('refuses a policy file that reads flags, naming them and the options that resolve them', async () => {
    const controller = new AbortController();
    const io = { ...createMemoryIo({ 'policy.json': json(deploysByFlag) }), signal: controller.signal };
    const code = await run(['serve', '--port', '0', '--policy', 'policy.json'], io);
    controller.abort();
    expect(code).toBe(1);
    expect(io.err.join('')).toBe(
      'policy.json: the policy reads flag "deploys", and nothing resolves them: add the flagd source that holds them (--flagd-file PATH or --flagd-host HOST), or read the policy from a flag of that source with --policy-flag KEY\n',
    );
  });

  it.each([
    ['--flagd-file', 'flags.json'],
    ['--flagd-host', 'flagd.invalid'],
  ])('calls %s with a policy file that reads no flags a usage error, before starting flagd', async (option, value) => {
    const controller = new AbortController();
    const plain = { version: 1, default: 'allow', rules: [] };
    const io = { ...createMemoryIo({ 'policy.json': json(plain) }), signal: controller.signal };
    const code = await run(['serve', '--port', '0', '--policy', 'policy.json', option, value], io);
    controller.abort();
    expect([code, io.err.join('')]).toEqual([
      2,
      `mcp-gate serve: ${option} resolves the flags a policy reads ({"var": "flags.<key>"}), and policy.json reads none; to read the policy itself from a flag, pass --policy-flag KEY instead of --policy\n`,
    ]);
  });
});

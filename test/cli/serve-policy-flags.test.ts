// Flags inside policies end to end: `serve --policy-flag` with flagd's in-process provider on a
// flag file (the real flagd evaluator and file sync) resolves the flags the policy reads from
// the same file; a policy file that reads flags has nothing to resolve them with and is refused.
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
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

function flagFile(deploys: 'on' | 'off') {
  return {
    flags: {
      'mcp-policy': { state: 'ENABLED', defaultVariant: 'current', variants: { current: deploysByFlag } },
      deploys: { state: 'ENABLED', defaultVariant: deploys, variants: { on: true, off: false } },
    },
  };
}

const directory = useTemporaryDirectory();
const running: RunningServe[] = [];
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

  it('refuses a policy file that reads flags, naming them and the options that resolve them', async () => {
    const controller = new AbortController();
    const io = { ...createMemoryIo({ 'policy.json': json(deploysByFlag) }), signal: controller.signal };
    const code = await run(['serve', '--port', '0', '--policy', 'policy.json'], io);
    controller.abort();
    expect(code).toBe(1);
    expect(io.err.join('')).toContain(
      'policy.json: the policy reads flag "deploys", and nothing resolves them: serve it with --policy-flag KEY and a flagd source (--flagd-file PATH or --flagd-host HOST), whose flags it then reads',
    );
  });
});

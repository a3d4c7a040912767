// A flag that changes in the flag file reaches the open sessions of `mcp-gate serve`: flagd's
// in-process provider (the real evaluator and file sync) emits ConfigurationChanged, the gate
// re-resolves the session's flags and sends tools/list_changed, while the --policy-flag watch
// re-applies the (unchanged) policy on the same event.
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startServe, toolNames, waitFor, type RunningServe } from '../serve/harness.js';
import { useTemporaryDirectory } from '../serve/temporary-directory.js';

/** Deploy tools only while flag `deploys` is on. */
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

describe('serve --policy-flag with a policy that reads flags', () => {
  it('sends tools/list_changed once when a flag the policy reads flips in the file', async () => {
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
});

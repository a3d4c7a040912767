// A live upstream as the source of primitives for manifest, explain, diff, check and the
// playground's preload: the recording upstream (test/wire) spawned over stdio, annotated by
// its own `_meta["mcp-gate"]` and by the proxy tests' overlay, read by the real CLI `run()`.
import { describe, expect, it } from 'vitest';
import { runInRepository } from './memory-io.js';

const upstream = ['--upstream-cmd', `"${process.execPath}" test/wire/recording-upstream.mjs`];
const overlay = ['--overlay', 'test/proxy/fixtures/recording.overlay.json'];
const policy = 'test/proxy/fixtures/admin-only.policy.json';

describe('a live upstream as the source of primitives', () => {
  it('manifest prints every primitive the upstream lists, annotated by _meta, else the overlay', async () => {
    const result = await runInRepository(['manifest', ...upstream, ...overlay]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(result.stdout) as { server: { name: string }; primitives: { kind: string; name?: string; uri?: string; groups?: string[] }[] };
    expect(manifest.server.name).toBe('recording-upstream');
    const byName = new Map(manifest.primitives.map((primitive) => [`${primitive.kind}:${primitive.name}`, primitive]));
    expect(byName.get('tool:public-echo')?.groups).toBeUndefined();
    // Its own _meta wins over the overlay's glob (which would say only "admin").
    expect(byName.get('tool:secret-meta')?.groups).toEqual(['secret', 'admin']);
    expect(byName.get('tool:secret-drop')?.groups).toEqual(['admin']);
    expect(byName.get('prompt:secret-prompt')?.groups).toEqual(['admin']);
    expect(byName.get('resourceTemplate:secret-items')?.groups).toEqual(['admin']);
    expect(manifest.primitives.filter((primitive) => primitive.kind === 'tool').length).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it('explain decides the upstream’s primitives under a policy', async () => {
    const result = await runInRepository(['explain', '--policy', policy, ...upstream, ...overlay, '--client', 'cursor', '--json']);
    expect(result.code).toBe(0);
    const { primitives } = JSON.parse(result.stdout) as { primitives: { kind: string; name: string; visible: boolean }[] };
    const visible = (name: string) => primitives.find((row) => row.kind === 'tool' && row.name === name)?.visible;
    expect(visible('public-echo')).toBe(true);
    expect(visible('secret-drop')).toBe(false);
    expect(visible('secret-meta')).toBe(false);
  }, 60_000);

  it('check proves and refutes invariants over the upstream’s primitives', async () => {
    const result = await runInRepository(['check', '--policy', policy, ...upstream, ...overlay, '--invariants', 'test/cli/fixtures/secret-invariants.json', '--json']);
    const report = JSON.parse(result.stdout) as { primitives: number; invariants: { id: string; status: string; counterexample?: { primitive: { name: string } } }[] };
    expect(report.invariants.map(({ id, status }) => [id, status])).toEqual([
      ['secrets-for-admins', 'proven'],
      ['secrets-never', 'refuted'],
    ]);
    expect(report.invariants[1]!.counterexample!.primitive.name).toMatch(/^secret-/);
    expect(result.code).toBe(1);
  }, 60_000);

  it('refuses an overlay without an upstream, and two sources at once', async () => {
    const noUpstream = await runInRepository(['explain', '--policy', policy, '--manifest', 'policies/demo.manifest.json', ...overlay]);
    expect(noUpstream.code).toBe(2);
    expect(noUpstream.stderr).toContain('--overlay annotates an upstream');
    const playgroundOverlay = await runInRepository(['playground', ...overlay]);
    expect(playgroundOverlay.code).toBe(2);
    expect(playgroundOverlay.stderr).toContain('--overlay annotates an upstream');
    const both = await runInRepository(['manifest', ...upstream, '--server', 'src/demo/demo-server.ts']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('pass either --server or --upstream-cmd/--upstream-url, not both');
  }, 60_000);

  it('names the upstream that cannot be read', async () => {
    const result = await runInRepository(['manifest', '--upstream-cmd', `"${process.execPath}" -e "process.exit(3)"`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^mcp-gate manifest: cannot read the upstream .* -e process\.exit\(3\): /);
  }, 60_000);
});

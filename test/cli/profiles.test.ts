import { mcpClients } from 'mcp-client-capabilities';
import { describe, expect, it } from 'vitest';
import { clientProfiles, findClientProfile, profileContext } from '../../src/profiles/client-profiles.js';
import { runWith } from './memory-io.js';

describe('clientProfiles', () => {
  it('holds every client of mcp-client-capabilities and the captured MCP Inspector CLI', () => {
    expect(clientProfiles.map((profile) => profile.id).sort()).toEqual([...Object.keys(mcpClients), 'inspector-cli'].sort());
  });

  it('has one profile per id, so a database update that adds a captured client fails here', () => {
    const ids = clientProfiles.map((profile) => profile.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps only what a client sends as capabilities, not the server features it uses', () => {
    const cursor = findClientProfile('cursor-vscode');
    expect(cursor.capabilities).toEqual({ roots: {}, elicitation: {} });
    for (const profile of clientProfiles) {
      expect(Object.keys(profile.capabilities).filter((key) => ['tools', 'prompts', 'resources', 'completions', 'logging'].includes(key))).toEqual([]);
    }
  });
});

describe('findClientProfile', () => {
  it.each([
    ['cursor', 'cursor-vscode'],
    ['Cursor', 'cursor-vscode'],
    ['claude-code', 'claude-code'],
    ['Claude Code', 'claude-code'],
    ['claude_code', 'claude-code'],
    ['vscode', 'Visual Studio Code'],
    ['Visual-Studio-Code', 'Visual-Studio-Code'],
    ['visual studio code', 'Visual Studio Code'],
    ['codex', 'Codex'],
    ['MCP Inspector CLI', 'inspector-cli'],
  ])('finds %j as %j', (name, id) => {
    expect(findClientProfile(name).id).toBe(id);
  });

  it('lists close matches for an unknown name', () => {
    expect(() => findClientProfile('claude')).toThrow(
      'unknown client profile "claude"; close matches: claude-ai (Claude.ai), claude-code (Claude Code); run "mcp-gate profiles" to list all 43',
    );
  });

  it('asks for an id when a product name is ambiguous', () => {
    expect(() => findClientProfile('OpenAI Codex')).toThrow(
      'client profile "OpenAI Codex" is ambiguous: it names Codex (OpenAI Codex), codex-mcp-client (OpenAI Codex); pass one of these ids',
    );
  });

  it('does not resolve names through prototype members', () => {
    expect(() => findClientProfile('constructor')).toThrow(/^unknown client profile "constructor"/);
  });
});

describe('profileContext', () => {
  it('is what the client sends: its name, capabilities and protocol version', () => {
    expect(profileContext(findClientProfile('cursor'))).toEqual({
      request: { protocolVersion: '2025-06-18' },
      client: { name: 'cursor-vscode', capabilities: { roots: {}, elicitation: {} } },
    });
  });

  it('returns a copy the caller may change', () => {
    const context = profileContext(findClientProfile('cursor'));
    (context.client!.capabilities as Record<string, unknown>)['sampling'] = {};
    expect(findClientProfile('cursor').capabilities).not.toHaveProperty('sampling');
  });
});

describe('mcp-gate profiles', () => {
  it('prints one row per profile with its capabilities', async () => {
    const result = await runWith(['profiles']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +PRODUCT +CAPABILITIES$/);
    expect(lines).toHaveLength(44);
    expect(lines).toContainEqual(expect.stringMatching(/^cursor-vscode +Cursor +roots, elicitation$/));
    expect(lines).toContainEqual(expect.stringMatching(/^inspector-cli +MCP Inspector CLI +roots, extensions$/));
  });

  it('prints JSON with --json', async () => {
    const result = await runWith(['profiles', '--json']);
    const profiles = JSON.parse(result.stdout) as Array<{ id: string }>;
    expect(profiles).toHaveLength(43);
  });

  it('rejects arguments (exit 2)', async () => {
    expect(await runWith(['profiles', 'cursor'])).toEqual({ code: 2, stdout: '', stderr: 'mcp-gate profiles: unexpected argument "cursor"\n' });
  });
});

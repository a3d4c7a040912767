import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError, PolicyOptionError } from '../../src/core/errors.js';
import { createGate, gate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { allowAll } from './helpers.js';

describe('createGate options', () => {
  it('names the option in every PolicyOptionError', () => {
    const cases: [() => unknown, string][] = [
      [() => createGate({ policy: allowAll(), denied: 'loud' as never }), 'mcp-gate: option "denied" must be "hide" or "explain", got "loud"'],
      [() => createGate({ policy: allowAll(), onMissingCapabilities: 'maybe' as never }), 'mcp-gate: option "onMissingCapabilities" must be "deny" or "allow", got "maybe"'],
      [() => createGate({ policy: allowAll(), pageSize: -1 }), 'mcp-gate: option "pageSize" must be a positive integer, got -1'],
      [() => createGate({ policy: allowAll(), versionSeparator: '' }), 'mcp-gate: option "versionSeparator" must be a non-empty string'],
      [() => createGate({ policy: 'allow' as never }), 'mcp-gate: option "policy" must be a compiled Policy or a policy document'],
    ];
    for (const [create, message] of cases) {
      expect(create).toThrow(message);
      expect(create).toThrow(PolicyOptionError);
    }
  });

  it('compiles a policy document, reporting every issue', () => {
    expect(() => createGate({ policy: { version: 1, default: 'allow', rules: [{ id: 'x', effect: 'deny', when: { startswith: [] } }] } })).toThrow(PolicyCompileError);
  });

  it('refuses to gate a server twice', () => {
    const server = new McpServer(serverInfo);
    gate(server, { policy: allowAll() });
    expect(() => gate(server, { policy: allowAll() })).toThrow('mcp-gate: this McpServer is already gated');
    expect(() => gate(server, { policy: allowAll() })).toThrow(PolicyOptionError);
  });

  it('keeps the old policy when setPolicy gets an invalid document', async () => {
    const handle = createGate({ policy: allowAll() });
    const before = handle.policy;
    await expect(handle.setPolicy({ version: 2 } as never)).rejects.toThrow(PolicyCompileError);
    expect(handle.policy).toBe(before);
  });
});

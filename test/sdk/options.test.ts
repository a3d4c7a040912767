import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { PolicyCompileError } from '../../src/core/errors.js';
import { createGate, gate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { allowAll } from './helpers.js';

describe('createGate options', () => {
  it('names the option in every TypeError', () => {
    expect(() => createGate({ policy: allowAll(), denied: 'loud' as never })).toThrow('mcp-gate: option "denied" must be "hide" or "explain", got "loud"');
    expect(() => createGate({ policy: allowAll(), onMissingCapabilities: 'maybe' as never })).toThrow(
      'mcp-gate: option "onMissingCapabilities" must be "deny" or "allow", got "maybe"',
    );
    expect(() => createGate({ policy: allowAll(), pageSize: -1 })).toThrow('mcp-gate: option "pageSize" must be a positive integer, got -1');
    expect(() => createGate({ policy: allowAll(), versionSeparator: '' })).toThrow('mcp-gate: option "versionSeparator" must be a non-empty string');
    expect(() => createGate({ policy: 'allow' as never })).toThrow('mcp-gate: option "policy" must be a compiled Policy or a policy document');
  });

  it('compiles a policy document, reporting every issue', () => {
    expect(() => createGate({ policy: { version: 1, default: 'allow', rules: [{ id: 'x', effect: 'deny', when: { startswith: [] } }] } })).toThrow(PolicyCompileError);
  });

  it('refuses to gate a server twice', () => {
    const server = new McpServer(serverInfo);
    gate(server, { policy: allowAll() });
    expect(() => gate(server, { policy: allowAll() })).toThrow('mcp-gate: this McpServer is already gated');
  });

  it('keeps the old policy when setPolicy gets an invalid document', async () => {
    const handle = createGate({ policy: allowAll() });
    const before = handle.policy;
    await expect(handle.setPolicy({ version: 2 } as never)).rejects.toThrow(PolicyCompileError);
    expect(handle.policy).toBe(before);
  });
});

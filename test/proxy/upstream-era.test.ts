import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { eraMismatchMessage } from '../../src/proxy/upstream-era.js';

describe('eraMismatchMessage', () => {
  it('names the revisions of a stdio upstream that refused the protocol version (an McpError -32022)', () => {
    const error = new McpError(-32022, 'Unsupported protocol version: 2025-11-25', { supported: ['2026-07-28', '2026-12-01'], requested: '2025-11-25' });
    expect(eraMismatchMessage(error)).toBe(
      'it speaks only protocol revisions 2026-07-28, 2026-12-01, and mcp-gate proxy opens 2025-era sessions upstream (2025-11-25 and earlier); see docs/proxy.md#protocol-eras',
    );
  });

  it('is undefined for any other failure', () => {
    expect(eraMismatchMessage(new McpError(-32601, 'Method not found'))).toBeUndefined();
    expect(eraMismatchMessage(new Error('Streamable HTTP error: Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32000,"message":"x"},"id":0}'))).toBeUndefined();
    expect(eraMismatchMessage(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBeUndefined();
    expect(eraMismatchMessage('not an error')).toBeUndefined();
  });
});

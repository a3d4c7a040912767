// Which requests the proxy's stateless route takes (http-host.ts asks before it routes to a
// session): a 2026-07-28 or later revision without a session id, and nothing that only sorts
// after "2026-07-28" as a string.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isStatelessRequest } from '../../src/proxy/stateless-requests.js';

const requestWith = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('isStatelessRequest', () => {
  it.each([
    [{ 'mcp-protocol-version': '2026-07-28' }, true],
    [{ 'mcp-protocol-version': '2027-01-01' }, true],
    [{ 'mcp-protocol-version': '2026-07-28', 'mcp-session-id': 'abc' }, false],
    [{ 'mcp-protocol-version': '2025-11-25' }, false],
    [{}, false],
    [{ 'mcp-protocol-version': '9' }, false],
    [{ 'mcp-protocol-version': 'latest' }, false],
    [{ 'mcp-protocol-version': '2026-07-28x' }, false],
  ])('%j → %s', (headers, expected) => {
    expect(isStatelessRequest(requestWith(headers))).toBe(expected);
  });
});

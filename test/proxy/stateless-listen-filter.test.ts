// The listen filter as it goes upstream (src/proxy/stateless-listen-filter.ts): a URI the listener
// may not read becomes a probe, and nothing else of the filter changes — its field names are not
// URIs, whatever the policy says of such a string.
import { expect, it } from 'vitest';
import { gatedRequest } from '../../src/proxy/stateless-listen-filter.js';

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } as never;
/** Only docs://readme may be read: a field name read as a URI would be hidden too. */
const shows = (uri: string) => uri === 'docs://readme';
const probe = /^docs:\/\/mcp-gate-probe\.invalid\/[0-9a-f]+$/;

it('keeps the filter’s fields and flags, and sends a probe for each URI the listener may not read', () => {
  const request = gatedRequest(
    { id: 7, params: { notifications: { toolsListChanged: true, resourcesListChanged: false, resourceSubscriptions: ['docs://readme', 'docs://secret'], other: 'x' } } },
    envelope,
    shows,
  );
  const notifications = request.params['notifications'] as Record<string, unknown>;
  expect(Object.keys(notifications)).toEqual(['toolsListChanged', 'resourcesListChanged', 'resourceSubscriptions']);
  expect(notifications).toMatchObject({ toolsListChanged: true, resourcesListChanged: false });
  const [visible, hidden] = notifications['resourceSubscriptions'] as string[];
  expect(visible).toBe('docs://readme');
  expect(hidden).toMatch(probe);
  expect([...request.relayedUris]).toEqual(['docs://readme']);
  // The upstream's answer names the hidden URI again where it named its probe.
  expect(request.named({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: `bad ${hidden}` } })).toEqual({
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32602, message: 'bad docs://secret' },
  });
});

it('keeps no hidden URI in a filter that is not one (a string where the list belongs)', () => {
  const request = gatedRequest({ id: 8, params: { notifications: 'docs://secret' } }, envelope, shows);
  expect(request.params['notifications']).toMatch(probe);
});

import { requireScopes, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatedHandler, createUngatedHandler, registerEverything, reportExtension } from './fixtures.js';
import { authenticateTestBearer, listen, onTheWire, postModern, type Endpoint, type ModernRequestOptions } from './http.js';

/**
 * Every kind of primitive with an OAuth scope challenge, hidden either by a header (the `admin`
 * group, `x-role`) or by the envelope (a declared extension). createMcpHandler resolves the
 * challenge before dispatch; the gate must answer it as the ungated SDK for what the request may
 * use and as for a name never registered for the rest.
 */
function registerScopedPrimitives(server: McpServer): void {
  const admin = { 'mcp-gate': { groups: ['admin'] } };
  const needsExtension = { 'mcp-gate': { requires: { capabilities: [`extensions.${reportExtension}`] } } };
  const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  const prompt = () => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'brief' } }] });
  const read = (uri: URL) => ({ contents: [{ uri: uri.href, text: 'secret' }] });
  server.registerTool('purge', { _meta: admin, scopeChallenge: requireScopes('admin:write') }, ok);
  server.registerTool('export-scoped', { _meta: needsExtension, scopeChallenge: requireScopes('export') }, ok);
  server.registerPrompt('admin-scoped', { _meta: admin, scopeChallenge: requireScopes('admin:read') }, prompt);
  server.registerPrompt('export-prompt', { _meta: needsExtension, scopeChallenge: requireScopes('export') }, prompt);
  server.registerResource('secret', 'docs://secret', { _meta: admin, scopeChallenge: requireScopes('admin:read') }, read);
  server.registerResource('export-doc', 'docs://export', { _meta: needsExtension, scopeChallenge: requireScopes('export') }, read);
  server.registerResource('secrets', new ResourceTemplate('secrets://{id}', { list: undefined }), { _meta: admin, scopeChallenge: requireScopes('admin:read') }, read);
  server.registerResource('exports', new ResourceTemplate('exports://{id}', { list: undefined }), { _meta: needsExtension, scopeChallenge: requireScopes('export') }, read);
}

let gated: Endpoint;
let ungated: Endpoint;
let unregistered: Endpoint;

beforeAll(async () => {
  gated = await listen(createGatedHandler({}, {}, undefined, registerScopedPrimitives), authenticateTestBearer);
  ungated = await listen(
    createUngatedHandler((server) => (registerEverything(server), registerScopedPrimitives(server))),
    authenticateTestBearer,
  );
  unregistered = await listen(createUngatedHandler(registerEverything), authenticateTestBearer);
});
afterAll(async () => {
  await Promise.all([gated, ungated, unregistered].map((endpoint) => endpoint.close()));
});

interface Target {
  readonly label: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly visible: ModernRequestOptions;
  readonly hidden: ModernRequestOptions;
  readonly scope: string;
}

const byHeader = { visible: { headers: { 'x-role': 'admin' } }, hidden: { headers: { 'x-role': 'guest' } } };
const byEnvelope = { visible: { capabilities: { extensions: { [reportExtension]: {} } } }, hidden: { capabilities: {} } };
const targets: Target[] = [
  { label: 'tool gated on a header', method: 'tools/call', params: { name: 'purge', arguments: {} }, scope: 'admin:write', ...byHeader },
  { label: 'tool gated on the envelope', method: 'tools/call', params: { name: 'export-scoped', arguments: {} }, scope: 'export', ...byEnvelope },
  { label: 'prompt gated on a header', method: 'prompts/get', params: { name: 'admin-scoped' }, scope: 'admin:read', ...byHeader },
  { label: 'prompt gated on the envelope', method: 'prompts/get', params: { name: 'export-prompt' }, scope: 'export', ...byEnvelope },
  { label: 'resource gated on a header', method: 'resources/read', params: { uri: 'docs://secret' }, scope: 'admin:read', ...byHeader },
  { label: 'resource gated on the envelope', method: 'resources/read', params: { uri: 'docs://export' }, scope: 'export', ...byEnvelope },
  { label: 'template gated on a header', method: 'resources/read', params: { uri: 'secrets://7' }, scope: 'admin:read', ...byHeader },
  { label: 'template gated on the envelope', method: 'resources/read', params: { uri: 'exports://7' }, scope: 'export', ...byEnvelope },
];

const bearer = (scopes: string) => ({ authorization: `Bearer scopes=${scopes}` });

async function onBoth(left: Endpoint, right: Endpoint, target: Target, options: ModernRequestOptions) {
  const [fromLeft, fromRight] = await Promise.all([postModern(left, target.method, target.params, options), postModern(right, target.method, target.params, options)]);
  return { left: onTheWire(fromLeft), right: onTheWire(fromRight) };
}

describe('gate (mcp-gate/server): scope challenges before dispatch', () => {
  for (const target of targets) {
    it(`challenges a visible ${target.label} byte for byte as the ungated server`, async () => {
      const options = { ...target.visible, headers: { ...target.visible.headers, ...bearer('') } };
      const { left, right } = await onBoth(gated, ungated, target, options);
      expect(right.status).toBe(403);
      expect(left).toEqual(right);
    });

    it(`serves a visible ${target.label} with its scope byte for byte as the ungated server`, async () => {
      const options = { ...target.visible, headers: { ...target.visible.headers, ...bearer(target.scope) } };
      const { left, right } = await onBoth(gated, ungated, target, options);
      expect(right.status).toBe(200);
      expect(left).toEqual(right);
    });

    it(`answers a hidden ${target.label} without its scope byte for byte as a server that never registered it`, async () => {
      const options = { ...target.hidden, headers: { ...target.hidden.headers, ...bearer('') } };
      const { left, right } = await onBoth(gated, unregistered, target, options);
      expect(left).toEqual(right);
      expect(left.headers['www-authenticate']).toBeUndefined();
    });
  }
});

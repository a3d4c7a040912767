import { createMcpHandler, requireScopes, type McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { gate } from '../../src/server/index.js';
import { createGatedHandler, createServer, createUngatedHandler, registerEverything, registryPolicy, reportExtension } from './fixtures.js';
import { authenticateTestBearer, listen, onTheWire, postModern, type Endpoint, type ModernRequestOptions } from './http.js';

/**
 * Tools whose visibility depends on the request's `_meta` envelope (a declared extension) and
 * that declare an `x-mcp-header`: createMcpHandler asks for their input schema before the
 * envelope is known, so the gate must still give every answer the ungated SDK gives.
 */
function registerEnvelopeGatedHeaderTools(server: McpServer): void {
  const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  const needsExtension = { 'mcp-gate': { requires: { capabilities: [`extensions.${reportExtension}`] } } };
  server.registerTool('export-regional', { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }), _meta: needsExtension }, ok);
  server.registerTool(
    'export-regional-scoped',
    { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }), _meta: needsExtension, scopeChallenge: requireScopes('export') },
    ok,
  );
  server.registerTool(
    'export-sized',
    { inputSchema: z.object({ size: z.number().int().meta({ 'x-mcp-header': 'Size' }), label: z.string().optional() }), _meta: needsExtension },
    ok,
  );
}

let gated: Endpoint;
let ungated: Endpoint;
let unregistered: Endpoint;

beforeAll(async () => {
  gated = await listen(createGatedHandler({}, {}, undefined, registerEnvelopeGatedHeaderTools), authenticateTestBearer);
  ungated = await listen(
    createUngatedHandler((server) => (registerEverything(server), registerEnvelopeGatedHeaderTools(server))),
    authenticateTestBearer,
  );
  unregistered = await listen(createUngatedHandler(registerEverything), authenticateTestBearer);
});
afterAll(async () => {
  await Promise.all([gated, ungated, unregistered].map((endpoint) => endpoint.close()));
});

const visible = { capabilities: { extensions: { [reportExtension]: {} } } } satisfies ModernRequestOptions;
const hidden = { capabilities: {} } satisfies ModernRequestOptions;
const noScopes = { authorization: 'Bearer scopes=' };

/** The same request to two endpoints, answers as a client sees them on the wire. */
async function both(left: Endpoint, right: Endpoint, name: string, args: Record<string, unknown>, options: ModernRequestOptions) {
  const params = { name, arguments: args };
  const [fromLeft, fromRight] = await Promise.all([postModern(left, 'tools/call', params, options), postModern(right, 'tools/call', params, options)]);
  return { left: onTheWire(fromLeft), right: onTheWire(fromRight) };
}

const headerCases: { label: string; headers: Record<string, string> }[] = [
  { label: 'without its Mcp-Param-Region header', headers: {} },
  { label: 'with a header that disagrees with the body', headers: { 'mcp-param-region': 'us' } },
  { label: 'with a header that agrees with the body', headers: { 'mcp-param-region': 'eu' } },
];

describe('gate (mcp-gate/server): Mcp-Param-* checks of tools gated on the envelope', () => {
  it('guards a real check: ungated, a missing or disagreeing header answers 400 / -32020', async () => {
    const missing = await postModern(ungated, 'tools/call', { name: 'export-regional', arguments: { region: 'eu' } }, visible);
    const disagreeing = await postModern(
      ungated,
      'tools/call',
      { name: 'export-regional', arguments: { region: 'eu' } },
      { ...visible, headers: { 'mcp-param-region': 'us' } },
    );
    expect([missing.status, missing.body.error?.code]).toEqual([400, -32020]);
    expect([disagreeing.status, disagreeing.body.error?.code]).toEqual([400, -32020]);
  });

  for (const { label, headers } of headerCases) {
    it(`answers a visible tool called ${label} byte for byte as the ungated server`, async () => {
      const { left, right } = await both(gated, ungated, 'export-regional', { region: 'eu' }, { ...visible, headers });
      expect(left).toEqual(right);
    });

    it(`answers a hidden tool called ${label} byte for byte as a server that never registered it`, async () => {
      const { left, right } = await both(gated, unregistered, 'export-regional', { region: 'eu' }, { ...hidden, headers });
      expect(left).toEqual(right);
      expect(left.status).toBe(200);
    });
  }

  it('compares integer headers as the SDK does (42 and 42.0 agree, base64 sentinels decode)', async () => {
    for (const header of ['42', '42.0', '=?base64?NDI=?=', '=?base64?not-canonical?=', '41', 'forty-two']) {
      const { left, right } = await both(gated, ungated, 'export-sized', { size: 42 }, { ...visible, headers: { 'mcp-param-size': header } });
      expect(left, header).toEqual(right);
    }
  });

  it('expects no header for an absent or null argument, as the SDK does', async () => {
    for (const args of [{ label: 'x' }, { size: null }]) {
      const { left, right } = await both(gated, ungated, 'export-sized', args, visible);
      expect(left).toEqual(right);
    }
  });
});

describe('gate (mcp-gate/server): scope challenges of tools gated on the envelope', () => {
  for (const { label, headers } of headerCases) {
    it(`answers a visible scoped tool called ${label} without its scope byte for byte as the ungated server`, async () => {
      const { left, right } = await both(gated, ungated, 'export-regional-scoped', { region: 'eu' }, { ...visible, headers: { ...noScopes, ...headers } });
      expect(left).toEqual(right);
    });

    it(`answers a hidden scoped tool called ${label} without its scope byte for byte as a server that never registered it`, async () => {
      const { left, right } = await both(gated, unregistered, 'export-regional-scoped', { region: 'eu' }, { ...hidden, headers: { ...noScopes, ...headers } });
      expect(left).toEqual(right);
      expect(left.status).toBe(200);
    });
  }

  it('checks the header before the scope, as the SDK does: 400 first, then 403', async () => {
    const params = { name: 'export-regional-scoped', arguments: { region: 'eu' } };
    const missing = await postModern(gated, 'tools/call', params, { ...visible, headers: noScopes });
    const agreeing = await postModern(gated, 'tools/call', params, { ...visible, headers: { ...noScopes, 'mcp-param-region': 'eu' } });
    expect(missing.status).toBe(400);
    expect(agreeing.status).toBe(403);
    expect(agreeing.headers.get('www-authenticate')).toContain('export');
  });
});

describe('gate (mcp-gate/server): Mcp-Param-* checks without the factory’s request', () => {
  it('still answers visible calls as the ungated server and hidden calls as never registered', async () => {
    const withoutRequest = await listen(
      createMcpHandler(() => {
        const server = createServer();
        registerEnvelopeGatedHeaderTools(server);
        gate(server, { policy: registryPolicy });
        return server;
      }),
    );
    try {
      for (const { headers } of headerCases) {
        const shown = await both(withoutRequest, ungated, 'export-regional', { region: 'eu' }, { ...visible, headers });
        expect(shown.left).toEqual(shown.right);
        const notShown = await both(withoutRequest, unregistered, 'export-regional', { region: 'eu' }, { ...hidden, headers });
        expect(notShown.left).toEqual(notShown.right);
      }
    } finally {
      await withoutRequest.close();
    }
  });
});

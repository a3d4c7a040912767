import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { clientCapabilitiesMetaKey } from '../../src/adapter/envelope.js';
import { createDemoServer } from '../../src/demo/demo-server.js';
import { callers, checkGateInvariants, defaultCallerDomains, profileCallers } from '../../src/testing/index.js';
import { modernEnvelope } from '../../src/testing/modern-requests.js';
import { createServer as createEverythingServer, registryPolicyDocument } from '../server/fixtures.js';
import { demoPolicy } from './fixtures.js';
import { checkRandomRegistries, expectFlakyPolicyReported, expectReadableFailure, expectRegistryChangeReported, selfModifyingServer } from './invariant-checks.js';
import { createDemoServerV2, createShopServerV2 } from './server-fixtures.js';

// Thousands of real requests each: well within the default timeout alone, but not always on a
// loaded 2-core machine running other files beside it. A bound, not a speed assertion.
const heavyCheckTimeout = 120_000;

describe('checkGateInvariants (mcp-gate/server, McpServer 2.4)', () => {
  it(
    'passes on the demo registry under the demo policy, for every real client profile and random callers',
    async () => {
      const report = await checkGateInvariants(createDemoServerV2, demoPolicy, { numRuns: 10 });
      expect(report.adapter).toBe('server');
      expect(report.callers).toBeGreaterThanOrEqual(42 + 10);
      expect(report.requests).toBeGreaterThan(1000);
    },
    heavyCheckTimeout,
  );

  it(
    'passes on a registry with versions, capability requirements and a header-gated admin group, over HTTP and stdio',
    async () => {
      const withRole = callers({ headers: { ...defaultCallerDomains.headers, 'x-role': ['admin', 'user'] } });
      const report = await checkGateInvariants(() => createEverythingServer(), registryPolicyDocument, { callers: withRole, numRuns: 10, everyClientProfile: false });
      expect(report).toMatchObject({ adapter: 'server', runs: 10 });
    },
    heavyCheckTimeout,
  );

  it(
    'passes on random servers under random policies, with and without pagination',
    async () => {
      await checkRandomRegistries('server', 2);
    },
    heavyCheckTimeout,
  );

  it('sends names beyond ASCII as the v2 SDK reads them, and expects unknown URIs echoed as sent', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {}); // the SDK warns about non-ASCII tool names
    try {
      const createServer = () => {
        const server = new McpServer({ name: 'intl', version: '1.0.0' });
        server.registerTool('検索', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, async () => ({ content: [] }));
        server.registerTool(' padded', {}, async () => ({ content: [] }));
        server.registerPrompt('grüße', { _meta: { 'mcp-gate': { groups: ['beta'] } } }, () => ({ messages: [] }));
        // Always hidden: SDK 2.4 cannot read a resource registered under a non-ASCII URI even ungated.
        server.registerResource('notiz', 'docs://ünïcode', { _meta: { 'mcp-gate': { groups: ['secret'] } } }, async (uri) => ({ contents: [{ uri: uri.href, text: 'x' }] }));
        return server;
      };
      const policy = {
        version: 1 as const,
        default: 'allow' as const,
        rules: [
          { id: 'secret', effect: 'deny' as const, appliesTo: { groups: ['secret'] } },
          { id: 'beta', effect: 'deny' as const, appliesTo: { groups: ['beta'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } },
        ],
      };
      const report = await checkGateInvariants(createServer, policy, { numRuns: 8, everyClientProfile: false });
      expect(report.requests).toBeGreaterThan(100);
    } finally {
      warn.mockRestore();
    }
  });

  it('throws the same readable error as on v1, comparing with the v2 SDK’s own not-found answer', async () => {
    await expectReadableFailure(createShopServerV2, {
      violation: 'hidden ≡ unknown: "refund_order" is not listed, but call answers isError "Input validation error',
      unknownAnswer: 'an unknown name gets error -32602 "Tool refund_order not found"',
    });
  });

  it('reports a server that changes its own registry during ordinary traffic', async () => {
    await expectRegistryChangeReported(selfModifyingServer(McpServer), ['caller 1: registry unchanged: _registeredTools["victim"].description changed']);
  });

  it('reports a policy whose decisions change from one request to the next', async () => {
    await expectFlakyPolicyReported(createDemoServerV2);
  });

  it('tells the two McpServers apart, and rejects options under which the invariants cannot hold, naming the option', async () => {
    await expect(checkGateInvariants(createDemoServer, demoPolicy, { adapter: 'server' })).rejects.toThrow(
      'mcp-gate/testing: option "adapter" is "server", but createServer() returned an McpServer of @modelcontextprotocol/sdk 1.32.x',
    );
    await expect(checkGateInvariants(createDemoServerV2, demoPolicy, { adapter: 'sdk' })).rejects.toThrow(
      'mcp-gate/testing: option "adapter" is "sdk", but createServer() returned an McpServer of @modelcontextprotocol/server 2.4.x',
    );
    await expect(checkGateInvariants(createDemoServerV2, demoPolicy, { gate: { missingCapability: 'error' } })).rejects.toThrow(
      'mcp-gate/testing: option "gate.missingCapability" must be "hide": with "error", hidden answers differ from unknown ones by design',
    );
    await expect(checkGateInvariants(createDemoServerV2, demoPolicy, { gate: { denied: 'explain' } })).rejects.toThrow(
      'mcp-gate/testing: option "gate.denied" must be "hide"',
    );
    const report = await checkGateInvariants(createDemoServerV2, demoPolicy, { adapter: 'server', numRuns: 1, everyClientProfile: false });
    expect(report.adapter).toBe('server');
  });
});

describe('modernEnvelope', () => {
  it('carries every real client profile’s capabilities to a v2 handler exactly as declared (what the oracle assumes)', async () => {
    let seen: unknown;
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'probe', version: '1.0.0' });
      server.registerTool('probe', {}, async (ctx) => {
        seen = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[clientCapabilitiesMetaKey];
        return { content: [] };
      });
      return server;
    });
    for (const caller of profileCallers()) {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'probe', arguments: {}, _meta: modernEnvelope(caller) } };
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'probe',
      };
      const response = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }));
      expect(response.status, caller.client.name).toBe(200);
      expect(seen, caller.client.name).toEqual(caller.client.capabilities);
    }
    await handler.close();
  });
});

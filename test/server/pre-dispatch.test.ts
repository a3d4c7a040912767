import { requireScopes, type McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createGatedHandler, createUngatedHandler, registerEverything, reportExtension } from './fixtures.js';
import { authenticateTestBearer, comparable, listen, postModern, type Endpoint } from './http.js';

const endpoints: Endpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

/** Tools whose pre-dispatch checks would answer 403 (scope challenge) or 400 (Mcp-Param header) ungated. */
function registerGuardedTools(server: McpServer): void {
  const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  server.registerTool('purge', { _meta: { 'mcp-gate': { groups: ['admin'] } }, scopeChallenge: requireScopes('admin:write') }, ok);
  server.registerTool('regional', { inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }), _meta: { 'mcp-gate': { groups: ['admin'] } } }, ok);
  server.registerTool(
    'export-scoped',
    { _meta: { 'mcp-gate': { requires: { capabilities: [`extensions.${reportExtension}`] } } }, scopeChallenge: requireScopes('export') },
    ok,
  );
  server.registerTool(
    'export-regional',
    {
      inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }),
      _meta: { 'mcp-gate': { requires: { capabilities: [`extensions.${reportExtension}`] } } },
    },
    ok,
  );
}

async function start(): Promise<{ gated: Endpoint; unregistered: Endpoint }> {
  const gated = await listen(createGatedHandler({}, {}, undefined, registerGuardedTools), authenticateTestBearer);
  const unregistered = await listen(createUngatedHandler(registerEverything), authenticateTestBearer);
  endpoints.push(gated, unregistered);
  return { gated, unregistered };
}

const noScopes = { authorization: 'Bearer scopes=' };
const withExtension = { extensions: { [reportExtension]: {} } };

describe('gate (mcp-gate/server): checks createMcpHandler runs before dispatch', () => {
  it('guards real leaks: ungated, both checks answer before the tool lookup', async () => {
    const ungated = await listen(
      createUngatedHandler((server) => (registerEverything(server), registerGuardedTools(server))),
      authenticateTestBearer,
    );
    endpoints.push(ungated);
    expect((await postModern(ungated, 'tools/call', { name: 'purge', arguments: {} }, { headers: noScopes })).status).toBe(403);
    expect((await postModern(ungated, 'tools/call', { name: 'regional', arguments: { region: 'eu' } })).status).toBe(400);
  });

  it('does not let a hidden tool’s scope challenge answer 403', async () => {
    const { gated, unregistered } = await start();
    const params = { name: 'purge', arguments: {} };
    const [fromGated, fromUnregistered] = await Promise.all([
      postModern(gated, 'tools/call', params, { headers: noScopes }),
      postModern(unregistered, 'tools/call', params, { headers: noScopes }),
    ]);
    expect(comparable(fromGated)).toEqual(comparable(fromUnregistered));
    expect(fromGated.status).toBe(200);
  });

  it('keeps the 403 scope challenge of a visible tool', async () => {
    const { gated } = await start();
    const answer = await postModern(gated, 'tools/call', { name: 'purge', arguments: {} }, { headers: { ...noScopes, 'x-role': 'admin' } });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toContain('admin:write');
  });

  it('decides scope challenges with the request’s own envelope', async () => {
    const { gated } = await start();
    const params = { name: 'export-scoped', arguments: {} };
    const without = await postModern(gated, 'tools/call', params, { headers: noScopes, capabilities: {} });
    const withIt = await postModern(gated, 'tools/call', params, { headers: noScopes, capabilities: withExtension });
    expect([without.status, without.body.error?.message]).toEqual([200, 'Tool export-scoped not found']);
    expect(withIt.status).toBe(403);
  });

  it('does not let a hidden tool’s Mcp-Param header check answer 400', async () => {
    const { gated, unregistered } = await start();
    const params = { name: 'regional', arguments: { region: 'eu' } };
    const [fromGated, fromUnregistered] = await Promise.all([postModern(gated, 'tools/call', params), postModern(unregistered, 'tools/call', params)]);
    expect(comparable(fromGated)).toEqual(comparable(fromUnregistered));
  });

  it('keeps the 400 header check of a visible tool', async () => {
    const { gated } = await start();
    const answer = await postModern(gated, 'tools/call', { name: 'regional', arguments: { region: 'eu' } }, { headers: { 'x-role': 'admin' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(-32020);
  });

  it('hides a tool gated on the envelope from the header check, and keeps the check once the envelope shows it visible', async () => {
    const { gated } = await start();
    const params = { name: 'export-regional', arguments: { region: 'eu' } };
    const hidden = await postModern(gated, 'tools/call', params, { capabilities: {} });
    expect([hidden.status, hidden.body.error?.message]).toEqual([200, 'Tool export-regional not found']);
    const visible = await postModern(gated, 'tools/call', params, { capabilities: withExtension });
    expect([visible.status, visible.body.error?.code]).toEqual([400, -32020]);
    const agreeing = await postModern(gated, 'tools/call', params, { capabilities: withExtension, headers: { 'mcp-param-region': 'eu' } });
    expect(agreeing.body.result?.['content']).toEqual([{ type: 'text', text: 'ok' }]);
  });
});

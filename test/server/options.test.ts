import { afterEach, describe, expect, it } from 'vitest';
import { createGatedHandler } from './fixtures.js';
import { listen, postModern, type Endpoint } from './http.js';

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('gate (mcp-gate/server) options', () => {
  it('pages visible tools with pageSize and rejects a cursor issued for another context (-32602)', async () => {
    endpoint = await listen(createGatedHandler({ pageSize: 2 }));
    const admin = { headers: { 'x-role': 'admin' } };
    const first = await postModern(endpoint, 'tools/list', {}, admin);
    expect((first.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name)).toEqual(['echo', 'admin-reset']);
    const cursor = first.body.result?.['nextCursor'] as string;
    const second = await postModern(endpoint, 'tools/list', { cursor }, admin);
    expect((second.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name)).toEqual(['report']);
    expect(second.body.result?.['nextCursor']).toBeUndefined();
    const otherCaller = await postModern(endpoint, 'tools/list', { cursor }, {});
    expect(otherCaller.body.error).toEqual({ code: -32602, message: 'Invalid cursor' });
    const forged = await postModern(endpoint, 'tools/list', { cursor: 'MTAuMDAwMDAwMDAwMDAwMDAwMA' }, admin);
    expect(forged.body.error).toEqual({ code: -32602, message: 'Invalid cursor' });
  });

  it("explains a denial under denied: 'explain'", async () => {
    endpoint = await listen(createGatedHandler({ denied: 'explain' }));
    const answer = await postModern(endpoint, 'tools/call', { name: 'admin-reset', arguments: {} });
    expect(answer.body.error).toEqual({ code: -32602, message: 'Tool admin-reset denied: denied by rule "admins-only"' });
  });

  it('publishes required capabilities under exposeRequirements and never the gate annotation', async () => {
    endpoint = await listen(createGatedHandler({ exposeRequirements: true }));
    const answer = await postModern(endpoint, 'tools/list', {}, { capabilities: { extensions: { 'com.example/report-export': {} } } });
    const exported = (answer.body.result?.['tools'] as { name: string; _meta?: Record<string, unknown> }[]).find((tool) => tool.name === 'export');
    expect(exported?._meta).toEqual({ 'io.modelcontextprotocol/requiredCapabilities': ['extensions.com.example/report-export'] });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createGatedHandler, reportExtension } from './fixtures.js';
import { listen, postModern, type Endpoint } from './http.js';

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('gate (mcp-gate/server): capability declarations', () => {
  it('rejects a modern request without declared capabilities before any tool runs (HTTP 400, -32602)', async () => {
    let toolRuns = 0;
    endpoint = await listen(createGatedHandler({}, { beforeToolAnswer: async () => void toolRuns++ }));
    const answer = await postModern(endpoint, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { capabilities: null });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: -32602, data: { envelope: { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' } } });
    expect(toolRuns).toBe(0);
  });

  it('answers a well-formed request lacking a required capability as for an unknown tool (HTTP 200, -32602), by default', async () => {
    endpoint = await listen(createGatedHandler());
    const answer = await postModern(endpoint, 'tools/call', { name: 'export', arguments: {} }, { capabilities: { extensions: {} } });
    expect(answer.status).toBe(200);
    expect(answer.body.error).toEqual({ code: -32602, message: 'Tool export not found' });
  });

  it("answers -32021 with data.requiredCapabilities (HTTP 400) under missingCapability: 'error'", async () => {
    endpoint = await listen(createGatedHandler({ missingCapability: 'error' }));
    const answer = await postModern(endpoint, 'tools/call', { name: 'export', arguments: {} }, { capabilities: { sampling: {} } });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({
      code: -32021,
      message: 'Missing required client capabilities: extensions',
      data: { requiredCapabilities: { extensions: { [reportExtension]: {} } } },
    });
  });

  it("keeps rule-based denials hidden under missingCapability: 'error'", async () => {
    endpoint = await listen(createGatedHandler({ missingCapability: 'error' }));
    const answer = await postModern(endpoint, 'tools/call', { name: 'admin-reset', arguments: {} }, { capabilities: {} });
    expect(answer.body.error).toEqual({ code: -32602, message: 'Tool admin-reset not found' });
  });

  it("still lists capability-gated tools only to requests declaring the capability under missingCapability: 'error'", async () => {
    endpoint = await listen(createGatedHandler({ missingCapability: 'error' }));
    const answer = await postModern(endpoint, 'tools/list', {}, { capabilities: {} });
    const names = (answer.body.result?.['tools'] as { name: string }[]).map((tool) => tool.name);
    expect(names).not.toContain('export');
  });

  it('serves a request declaring the capability', async () => {
    endpoint = await listen(createGatedHandler({ missingCapability: 'error' }));
    const answer = await postModern(endpoint, 'tools/call', { name: 'export', arguments: {} }, { capabilities: { extensions: { [reportExtension]: {} } } });
    expect(answer.body.result?.['content']).toEqual([{ type: 'text', text: 'exported' }]);
  });
});

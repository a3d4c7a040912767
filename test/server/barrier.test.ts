import { afterEach, describe, expect, it } from 'vitest';
import { createGatedHandler, reportExtension } from './fixtures.js';
import { createBarrier, listen, postModern, type Endpoint } from './http.js';

let endpoint: Endpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

function textOf(answer: { body: { result?: Record<string, unknown> } }): string | undefined {
  const content = answer.body.result?.['content'] as { text?: string }[] | undefined;
  return content?.[0]?.text;
}

describe('gate (mcp-gate/server) under concurrency', () => {
  it('routes two concurrent calls by each request’s own capabilities while both are held at a barrier', async () => {
    const barrier = createBarrier(2);
    endpoint = await listen(createGatedHandler({}, { beforeToolAnswer: () => barrier.arrive() }));
    const [withExtension, withoutExtension] = await Promise.all([
      postModern(endpoint, 'tools/call', { name: 'report', arguments: {} }, { capabilities: { extensions: { [reportExtension]: {} } }, id: 1 }),
      postModern(endpoint, 'tools/call', { name: 'report', arguments: {} }, { capabilities: { extensions: {} }, id: 2 }),
    ]);
    expect(barrier.arrived).toBe(2);
    expect(textOf(withExtension)).toBe('enabled');
    expect(textOf(withoutExtension)).toBe('disabled');
  });

  it('answers 50 concurrent lists and calls with random capability sets, each from its own envelope', async () => {
    let seed = 20260728;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const requests = Array.from({ length: 50 }, (_, index) => ({
      index,
      hasExtension: random() < 0.5,
      admin: random() < 0.5,
      method: random() < 0.5 ? 'tools/list' : 'tools/call',
      tool: random() < 0.5 ? 'report' : 'export',
    }));
    const calls = requests.filter((request) => request.method === 'tools/call' && (request.tool === 'report' || request.hasExtension));
    const barrier = createBarrier(calls.length);
    endpoint = await listen(createGatedHandler({}, { beforeToolAnswer: () => barrier.arrive() }));
    const answers = await Promise.all(
      requests.map((request) => {
        const capabilities = request.hasExtension ? { extensions: { [reportExtension]: {} }, sampling: {} } : { sampling: {} };
        const headers: Record<string, string> = request.admin ? { 'x-role': 'admin' } : {};
        const options = { capabilities, id: request.index, headers };
        const params = request.method === 'tools/list' ? {} : { name: request.tool, arguments: {} };
        return postModern(endpoint!, request.method, params, options);
      }),
    );
    for (const [index, request] of requests.entries()) {
      const answer = answers[index]!;
      if (request.method === 'tools/list') {
        const names = (answer.body.result?.['tools'] as { name: string; description: string }[]).map((tool) => `${tool.name}:${tool.description}`);
        const expected = ['echo:echoes', ...(request.admin ? ['admin-reset:admin only'] : []), ...(request.hasExtension ? ['export:needs the report extension'] : [])];
        expected.push(request.hasExtension ? 'report:report v2' : 'report:report v1');
        expect(names.sort(), `request ${index}`).toEqual(expected.sort());
      } else if (request.tool === 'report') {
        expect(textOf(answer), `request ${index}`).toBe(request.hasExtension ? 'enabled' : 'disabled');
      } else if (request.hasExtension) {
        expect(textOf(answer), `request ${index}`).toBe('exported');
      } else {
        expect(answer.body.error, `request ${index}`).toEqual({ code: -32602, message: 'Tool export not found' });
      }
    }
    expect(barrier.arrived).toBe(calls.length);
  });
});

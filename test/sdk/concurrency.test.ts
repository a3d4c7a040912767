import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/core/context.js';
import { compilePolicy } from '../../src/core/policy/compile-policy.js';
import { createGate } from '../../src/sdk/index.js';
import { serverInfo } from './fixtures.js';
import { startHttp, type HttpHarness } from './http-server.js';

const canaryPolicy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [{ id: 'canary', effect: 'deny', appliesTo: { tags: ['canary'] }, when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] } }],
});
const noCanaryPolicy = compilePolicy({ version: 1, default: 'allow', rules: [{ id: 'no-canary', effect: 'deny', appliesTo: { tags: ['canary'] } }] });

/** Resolves once `count` callers have arrived, so every request is in flight at the same time. */
function createBarrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    opened,
    async arrive() {
      if (++arrived === count) open();
      await opened;
    },
  };
}

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('gate (concurrency)', () => {
  it('gives each of many concurrent requests its own context, and lets them finish across a policy swap', async () => {
    const callers = 8;
    const canaryCallers = callers / 2;
    const barrier = createBarrier(canaryCallers);
    const contextsSeen = new Map<string, Set<string>>();
    // Records, per caller id, which canary headers the gate's contexts carried for it.
    const record = (context: RequestContext) => {
      const id = context.request.headers['x-caller'] ?? '?';
      if (!contextsSeen.has(id)) contextsSeen.set(id, new Set());
      contextsSeen.get(id)!.add(`${context.request.headers['x-canary'] ?? '0'}|${context.client.name}`);
    };
    // Lists decide through forContext, calls through evaluate: record both.
    const recording = {
      ...canaryPolicy,
      evaluate(context: RequestContext, primitive: Parameters<typeof canaryPolicy.evaluate>[1]) {
        record(context);
        return canaryPolicy.evaluate(context, primitive);
      },
      forContext(context: RequestContext) {
        record(context);
        return canaryPolicy.forContext(context);
      },
    };
    const gate = createGate({ policy: recording });
    harness = await startHttp(
      'stateful',
      () => {
        const server = new McpServer(serverInfo);
        server.registerTool('whoami-canary', { _meta: { 'mcp-gate': { tags: ['canary'] } } }, async (extra) => {
          await barrier.arrive();
          return { content: [{ type: 'text', text: String(extra.requestInfo?.headers['x-caller']) }] };
        });
        return server;
      },
      gate,
    );
    const clients = await Promise.all(
      Array.from({ length: callers }, async (_, index) => {
        const canary = index % 2 === 0 ? '1' : '0';
        const client = new Client({ name: `client-${index}`, version: '1.0.0' });
        const headers = { 'x-caller': String(index), 'x-canary': canary };
        await client.connect(new StreamableHTTPClientTransport(harness!.url('/mcp'), { requestInit: { headers } }));
        return { client, index, canary };
      }),
    );
    const lists = await Promise.all(clients.map(({ client }) => client.listTools()));
    lists.forEach((listed, index) => expect(listed.tools.map((tool) => tool.name)).toEqual(index % 2 === 0 ? ['whoami-canary'] : []));

    const calls = clients.map(({ client }) => client.callTool({ name: 'whoami-canary' }));
    await barrier.opened; // every canary call is inside its handler now
    await gate.setPolicy(noCanaryPolicy);
    const results = await Promise.all(calls);
    results.forEach((result, index) =>
      expect(result.content).toEqual([{ type: 'text', text: index % 2 === 0 ? String(index) : 'MCP error -32602: Tool whoami-canary not found' }]),
    );
    for (const { index, canary } of clients) expect([...contextsSeen.get(String(index))!]).toEqual([`${canary}|client-${index}`]);
    expect((await clients[0]!.client.callTool({ name: 'whoami-canary' })).isError).toBe(true);
    await Promise.all(clients.map(({ client }) => client.close()));
  });
});

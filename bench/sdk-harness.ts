// Shared pieces of the SDK benches: identical servers with and without the gate, a request
// `extra` for calling stored handlers directly, and an async interleaved sampler (the core's
// measure.ts is synchronous; SDK handlers return promises).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { compilePolicy } from '../src/core/policy/compile-policy.js';
import { gate } from '../src/sdk/index.js';

export const toolCount = 1000;

/** Deny rules that read the client and a header, and match nothing here: the gated list equals the ungated one. */
export const benchPolicy = compilePolicy({
  version: 1,
  default: 'allow',
  rules: [
    { id: 'internal-needs-header', effect: 'deny', appliesTo: { groups: ['internal'] }, when: { '!=': [{ var: 'request.headers.x-internal' }, '1'] } },
    { id: 'beta-for-beta-clients', effect: 'deny', appliesTo: { tags: ['beta'] }, when: { '!': [{ starts_with: [{ var: 'client.name' }, 'beta'] }] } },
  ],
});

/** 1,000 tools with realistic zod input and output schemas (the SDK converts each on every tools/list). */
export function createBenchServer(gated: boolean): McpServer {
  const server = new McpServer({ name: 'bench', version: '1.0.0' });
  if (gated) gate(server, { policy: benchPolicy });
  for (let index = 0; index < toolCount; index++) {
    server.registerTool(
      `tool-${index}`,
      {
        description: `Tool number ${index}`,
        inputSchema: { query: z.string().min(1), limit: z.number().int().max(100).optional(), mode: z.enum(['fast', 'exact']).default('fast') },
        outputSchema: { hits: z.array(z.object({ id: z.string(), score: z.number() })) },
        annotations: { readOnlyHint: true },
        _meta: index % 10 === 0 ? { 'com.example/owner': 'search-team' } : undefined,
      },
      async ({ query }) => ({ content: [{ type: 'text', text: query }], structuredContent: { hits: [{ id: query, score: 1 }] } }),
    );
  }
  return server;
}

type StoredHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** The handler the protocol would run for `method` (the gated wrapper, or the SDK's own). */
export function storedHandler(server: McpServer, method: string): StoredHandler {
  const handlers = (server.server as unknown as { _requestHandlers: Map<string, StoredHandler> })._requestHandlers;
  return handlers.get(method)!;
}

/**
 * The `extra` the protocol passes to handlers: an object literal with the fields, in the order,
 * of the SDK's own (Protocol#_onRequest in shared/protocol.js), minus task plumbing the benched
 * paths never touch. Built as one literal, as the SDK builds it: every extra then shares one
 * hidden class. A spread (`{ ...base, authInfo }`) gave each extra a map of its own, which made
 * every property read of it a megamorphic inline-cache miss (hundreds of instructions each, in
 * V8's runtime) and charged that to whoever reads the extra most: the gate (issue 11 item 11).
 */
function sdkExtra(requestId: number, requestInfo: ReturnType<typeof httpRequestInfo> | undefined, authInfo: typeof httpAuthInfo | undefined): unknown {
  return {
    signal: new AbortController().signal,
    sessionId: undefined,
    _meta: undefined,
    sendNotification: async () => undefined,
    sendRequest: async () => {
      throw new Error('not in bench');
    },
    authInfo,
    requestId,
    requestInfo,
    taskId: undefined,
    taskStore: undefined,
    taskRequestedTtl: undefined,
    closeSSEStream: undefined,
    closeStandaloneSSEStream: undefined,
  };
}

/** The `extra` of a request with minimal HTTP request info: two headers and a URL, no auth. */
export function createExtra(requestId: number): unknown {
  return sdkExtra(requestId, { headers: { 'x-internal': '0', 'content-type': 'application/json' }, url: new URL('http://127.0.0.1/mcp') }, undefined);
}

/** The `extra` of a request without request info or auth (stdio, in-memory). */
export function createStdioExtra(requestId: number): unknown {
  return sdkExtra(requestId, undefined, undefined);
}

/**
 * What a Streamable HTTP request brings besides its body: the eight headers a real client sends
 * (the policy reads one of them), a URL path, and verified auth with scopes.
 */
export function httpRequestInfo(): { headers: Record<string, string>; url: URL } {
  return {
    headers: {
      host: '127.0.0.1:3000',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'content-length': '96',
      'user-agent': 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
      'mcp-protocol-version': '2025-06-18',
      'mcp-session-id': '2f4c1e8a-5b7d-4e21-9c3a-0d6f8b2a1e47',
      'x-internal': '0',
    },
    url: new URL('http://127.0.0.1:3000/mcp/admin'),
  };
}

export const httpAuthInfo = { token: 'bench-token', clientId: 'bench-client', scopes: ['mcp:tools', 'mcp:read'], extra: { sub: 'user-1' } };

/** The `extra` of an HTTP-shaped request: `httpRequestInfo` and `httpAuthInfo`. */
export function createHttpExtra(requestId: number): unknown {
  return sdkExtra(requestId, httpRequestInfo(), httpAuthInfo);
}

/**
 * `http: true` makes every request look as if it arrived over Streamable HTTP: the in-memory
 * server transport hands the protocol the request info and auth an HTTP transport would, so the
 * SDK builds the handler's `extra` exactly as it does for HTTP.
 */
export async function connectClient(server: McpServer, options: { http?: boolean } = {}): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  await server.connect(serverTransport);
  if (options.http) {
    const deliver = serverTransport.onmessage!;
    // The SDK's MessageExtraInfo carries `requestInfo` too; InMemoryTransport's type only names authInfo.
    serverTransport.onmessage = (message, extra) => deliver(message, { ...extra, requestInfo: httpRequestInfo(), authInfo: httpAuthInfo } as Parameters<typeof deliver>[1]);
  }
  await client.connect(clientTransport);
  return client;
}

export interface AsyncCase {
  readonly id: string;
  readonly run: () => Promise<unknown>;
}

export interface AsyncResult {
  readonly id: string;
  readonly samples: number;
  readonly p50: number;
  readonly p25: number;
  readonly p75: number;
}

/**
 * Which clock times a batch. `wall` (the default) is elapsed time. `cpu` is the process's CPU
 * time (user + system, every thread): on a machine shared with other work, a batch that was
 * descheduled for a while is not charged for the wait, which wall time would add to whichever
 * case happened to run then.
 */
export type BatchClock = 'wall' | 'cpu';

/** Now, in nanoseconds, on `clock`. */
export function clockNs(clock: BatchClock): number {
  if (clock === 'wall') return Number(process.hrtime.bigint());
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/**
 * Times each case `samples` times, interleaved (a different case first each round) so GC pauses
 * and machine noise fall on all cases alike; every sample is the mean of `batch` sequential runs.
 */
export async function measureAsync(cases: readonly AsyncCase[], options: { warmup: number; samples: number; batch: number; clock?: BatchClock }): Promise<AsyncResult[]> {
  const clock = options.clock ?? 'wall';
  for (let round = 0; round < options.warmup; round++) for (const benchCase of cases) await benchCase.run();
  const perOp: number[][] = cases.map(() => []);
  for (let round = 0; round < options.samples; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const index = (round + offset) % cases.length;
      const start = clockNs(clock);
      for (let rep = 0; rep < options.batch; rep++) await cases[index]!.run();
      perOp[index]!.push((clockNs(clock) - start) / options.batch);
    }
  }
  return cases.map((benchCase, index) => {
    const sorted = [...perOp[index]!].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * q))]!;
    return { id: benchCase.id, samples: sorted.length, p50: at(0.5), p25: at(0.25), p75: at(0.75) };
  });
}

export function formatNs(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} µs`;
}

export function writeResults(file: string, results: unknown): void {
  writeFileSync(new URL(`./results/${file}`, import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`wrote bench/results/${file}`);
}

/** Fails the bench before timing anything when two implementations disagree. */
export function assertSameJson(label: string, actual: unknown, expected: unknown): void {
  const [left, right] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (left !== right) throw new Error(`${label}: gated and ungated results differ; not timing a wrong answer`);
}

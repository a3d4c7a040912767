// 2026-07-28's `input_required` through the era bridge (docs/proxy.md, "The era bridge"): a real
// `@modelcontextprotocol/server` 2.4 upstream with `legacy: 'reject'` asks for input; the proxy asks
// a real v1 SDK client (2025-11-25) in a session as 2025 server→client requests, and retries
// upstream with the answers. A client without the capability is refused, never asked, never left waiting.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCapabilitiesMetaKey, clientInfoMetaKey } from '../../src/adapter/envelope.js';
import { createServer } from '../server/fixtures.js';
import { listen, type Endpoint } from '../server/http.js';
import { rawAnswer, recordReceived, startProxy, type RunningProxy } from './harness.js';
import { registerConfirmingDeploy } from './modern-upstream-tools.js';

const policyPath = join(tmpdir(), `mcp-gate-era-bridge-input-${process.pid}.policy.json`);
/** The tools/call requests the upstream received, by client name. */
const calls: { client: string | undefined; params: Record<string, unknown> }[] = [];

const upstreamHandler = createMcpHandler(
  () => {
    const server = createServer();
    registerConfirmingDeploy(server);
    // Two requests in one round: the client's roots and a sampled answer.
    server.registerTool('survey', { description: 'asks for roots and a completion' }, (context) => {
      const responses = context.mcpReq.inputResponses as Record<string, { roots?: { uri: string }[]; content?: { text?: string } }> | undefined;
      if (responses?.['roots'] !== undefined && responses['summary'] !== undefined) {
        const text = `${responses['roots'].roots?.map((root) => root.uri).join(',')} / ${responses['summary'].content?.text}`;
        return { content: [{ type: 'text' as const, text }] };
      }
      return inputRequired({
        inputRequests: {
          roots: inputRequired.listRoots(),
          summary: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 10 }),
        },
      });
    });
    return server;
  },
  { legacy: 'reject' },
);

let upstream: Endpoint;
let proxy: RunningProxy;

beforeAll(async () => {
  writeFileSync(policyPath, JSON.stringify({ version: 1, default: 'allow', rules: [] }));
  upstream = await listen(async (request) => {
    const text = await request.clone().text();
    if (text === '') return upstreamHandler.fetch(request);
    const body = JSON.parse(text) as { method?: string; params?: { _meta?: Record<string, unknown> } };
    const meta = body.params?._meta ?? {};
    const client = (meta[clientInfoMetaKey] as { name?: string } | undefined)?.name;
    if (body.method === 'tools/call') calls.push({ client, params: body.params as Record<string, unknown> });
    // A lax upstream for one client: it asks for elicitation whatever the envelope says.
    if (client !== 'bridged-lax') return upstreamHandler.fetch(request);
    const laxBody = { ...body, params: { ...body.params, _meta: { ...meta, [clientCapabilitiesMetaKey]: { elicitation: {} } } } };
    return upstreamHandler.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(laxBody) }));
  });
  proxy = await startProxy(['--policy', policyPath, '--upstream-url', `${upstream.url}/mcp`]);
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await upstream?.close();
});

async function connect(name: string, capabilities: Record<string, unknown>) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  const recorded = recordReceived(new StreamableHTTPClientTransport(proxy.url));
  await client.connect(recorded.transport);
  return { client, recorder: recorded };
}

describe('mcp-gate proxy bridging input_required to 2025-era sessions', () => {
  it('asks the client elicitation/create, and retries upstream with its answer', async () => {
    const { client } = await connect('bridged-eliciting', { elicitation: { form: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      expect(await client.callTool({ name: 'deploy', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'deployed' }] });
      expect(asked).toEqual(['Deploy?']);
      const sent = calls.filter((call) => call.client === 'bridged-eliciting').map((call) => call.params['inputResponses']);
      expect(sent).toEqual([undefined, { confirm: { action: 'accept', content: { confirm: true } } }]);
    } finally {
      await client.close();
    }
  });

  it('asks roots/list and sampling/createMessage of one round together', async () => {
    const { client } = await connect('bridged-surveyed', { roots: {}, sampling: {} });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'short' } }));
    try {
      expect(await client.callTool({ name: 'survey', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'file:///work / short' }] });
    } finally {
      await client.close();
    }
  });

  it('gives a client without the capability the upstream’s clear error, at once', async () => {
    const { client, recorder } = await connect('bridged-no-elicitation', {});
    try {
      // The upstream refuses it itself: the envelope carries the session's capabilities, without elicitation.
      expect(JSON.parse(await rawAnswer(client, recorder, 'tools/call', { name: 'deploy', arguments: {} }))).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32021,
          message: "Cannot request input 'confirm' (elicitation/create): the request's client capabilities do not declare the required capability",
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        },
      });
    } finally {
      await client.close();
    }
  });

  it('refuses, without asking the client, input the upstream asks for anyway of a client without the capability', async () => {
    const { client, recorder } = await connect('bridged-lax', {});
    try {
      expect(JSON.parse(await rawAnswer(client, recorder, 'tools/call', { name: 'deploy', arguments: {} }))).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32021,
          message: "Cannot request input 'confirm' (elicitation/create): the client of this 2025-era session did not declare the required capability",
          data: { requiredCapabilities: { elicitation: { form: {} } } },
        },
      });
      // Asked once; no retry went upstream.
      expect(calls.filter((call) => call.client === 'bridged-lax')).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('answers a client that fails the request it was asked with the reason', async () => {
    const { client, recorder } = await connect('bridged-failing', { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, () => {
      throw new Error('no user at the keyboard');
    });
    try {
      const answer = JSON.parse(await rawAnswer(client, recorder, 'tools/call', { name: 'deploy', arguments: {} })) as { error?: { code: number; message: string } };
      expect(answer.error?.code).toBe(-32603);
      expect(answer.error?.message).toMatch(/^Fulfilling input required by 'tools\/call' failed: .*no user at the keyboard/);
    } finally {
      await client.close();
    }
  });
});

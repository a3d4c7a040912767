import type { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatedHandler, createUngatedHandler, registerEverything } from './fixtures.js';
import { comparable, listen, postModern, type Endpoint } from './http.js';

/**
 * What a plain caller (no admin header, no report extension) should see: the same server as if
 * the hidden primitives had never been registered, and `report` as its 1.0.0 registration.
 */
function registerAsSeenByPlainCaller(server: McpServer): void {
  const hidden = new Set(['admin-reset', 'export', 'report__2.0.0', 'admin-brief', 'audit', 'vault']);
  const patched = server as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['registerTool', 'registerPrompt', 'registerResource']) {
    const original = patched[method]!.bind(server);
    patched[method] = (name: unknown, ...rest: unknown[]) => {
      if (hidden.has(String(name))) return undefined;
      const [config, ...others] = rest;
      const withoutAnnotation = stripGateMeta(config);
      return original(name === 'report__1.0.0' ? 'report' : name, withoutAnnotation, ...others);
    };
  }
  registerEverything(server);
}

function stripGateMeta(config: unknown): unknown {
  if (config === null || typeof config !== 'object' || !('_meta' in config)) return config;
  const { _meta, ...rest } = config as { _meta: Record<string, unknown> };
  const { 'mcp-gate': _gate, ...meta } = _meta;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

let gated: Endpoint;
let ungated: Endpoint;
beforeAll(async () => {
  gated = await listen(createGatedHandler());
  ungated = await listen(createUngatedHandler(registerAsSeenByPlainCaller));
});
afterAll(async () => {
  await gated.close();
  await ungated.close();
});

const probes: [string, string, Record<string, unknown>][] = [
  ['lists only visible tools, under public names', 'tools/list', {}],
  ['lists only visible prompts', 'prompts/list', {}],
  ['lists only visible resources (hidden template list callbacks never run)', 'resources/list', {}],
  ['lists only visible templates', 'resources/templates/list', {}],
  ['calls a hidden tool as an unknown one', 'tools/call', { name: 'admin-reset', arguments: {} }],
  ['calls a hidden tool with malformed arguments as an unknown one', 'tools/call', { name: 'admin-reset', arguments: 'oops' }],
  ['calls a capability-gated tool as an unknown one', 'tools/call', { name: 'export', arguments: {} }],
  ['calls the visible version of a versioned tool', 'tools/call', { name: 'report', arguments: {} }],
  ['gets a hidden prompt as an unknown one', 'prompts/get', { name: 'admin-brief', arguments: { topic: 'x' } }],
  ['reads a hidden resource as an unknown one', 'resources/read', { uri: 'docs://audit' }],
  ['reads through a hidden template as an unknown URI', 'resources/read', { uri: 'vault://1' }],
  [
    'completes a hidden prompt’s argument as an unknown prompt’s',
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'admin-brief' }, argument: { name: 'topic', value: '' } },
  ],
  [
    'completes a hidden template’s variable as an unknown template’s',
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'vault://{id}' }, argument: { name: 'id', value: '' } },
  ],
  ['completes a visible prompt’s argument', 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }],
  ['reads a visible template', 'resources/read', { uri: 'items://7' }],
];

describe('gate (mcp-gate/server): hidden ≡ never registered, over Streamable HTTP', () => {
  for (const [behaviour, method, params] of probes) {
    it(behaviour, async () => {
      const options = { capabilities: { sampling: {} } };
      const [fromGated, fromUngated] = await Promise.all([postModern(gated, method, params, options), postModern(ungated, method, params, options)]);
      expect(comparable(fromGated)).toEqual(comparable(fromUngated));
    });
  }

  it('answers a versioned tool’s internal registry key as unknown', async () => {
    const answer = await postModern(gated, 'tools/call', { name: 'report__2.0.0', arguments: {} }, { capabilities: {} });
    expect(answer.body.error).toEqual({ code: -32602, message: 'Tool report__2.0.0 not found' });
  });

  it('shows admin primitives to a request carrying the admin header', async () => {
    const answer = await postModern(gated, 'tools/call', { name: 'admin-reset', arguments: {} }, { headers: { 'x-role': 'admin' } });
    expect(answer.body.result?.['content']).toEqual([{ type: 'text', text: 'reset' }]);
  });
});

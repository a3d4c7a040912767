// An upstream that records every message it receives, to prove that nothing naming a hidden
// primitive reaches it. Used in process (createRecordingUpstream) and spawned over stdio by the
// proxy tests (`node recording-upstream.mjs`: plain JavaScript, so it starts without tsx), where
// each received message is one JSON line on stderr, prefixed "received ". Types: .d.mts beside it.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** The primitives: `secret-*` are hidden by the tests' policies, via `_meta` or the overlay. */
export function createRecordingUpstream() {
  const server = new McpServer({ name: 'recording-upstream', version: '1.0.0' }, { capabilities: { resources: { subscribe: true }, logging: {} } });
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  server.registerTool('public-echo', { inputSchema: { message: z.string() } }, async ({ message }) => text(`echo: ${message}`));
  // Annotated by the overlay (no _meta of its own).
  server.registerTool('secret-drop', { inputSchema: { table: z.string() } }, async ({ table }) => text(`dropped ${table}`));
  // Annotated by its own _meta.
  server.registerTool('secret-meta', { _meta: { 'mcp-gate': { groups: ['secret', 'admin'] }, other: 1 } }, async () => text('meta secret'));
  for (let index = 0; index < 5; index++) server.registerTool(`bulk-${index}`, {}, async () => text(`bulk ${index}`));
  server.registerTool('add-secret-tool', {}, async () => {
    server.registerTool('secret-late', {}, async () => text('late secret'));
    return text('added');
  });
  let publicLate = 0;
  server.registerTool('add-public-tool', {}, async () => {
    const name = `public-late-${++publicLate}`;
    server.registerTool(name, {}, async () => text(name));
    return text(`added ${name}`);
  });
  server.registerTool('sample', {}, async (extra) => {
    const answer = await extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } },
      z.looseObject({ content: z.looseObject({ text: z.string() }) }),
    );
    return text(`sampled: ${answer.content.text}`);
  });
  server.registerTool('slow-progress', {}, async (extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined)
      for (let step = 1; step <= 2; step++) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: 2 } });
    // An SDK client loses a progress update that reaches it in the same read as the response (its
    // handler runs a microtask late); the pause keeps the test about the proxy, not that.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return text('done');
  });
  server.registerPrompt('public-prompt', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'public' } }] }));
  server.registerPrompt('secret-prompt', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'secret' } }] }));
  server.registerResource('public-doc', 'test://docs/public', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'public doc' }] }));
  server.registerResource('secret-doc', 'test://docs/secret', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'secret doc' }] }));
  server.registerResource('secret-items', new ResourceTemplate('test://secret/{id}', { list: undefined, complete: { id: () => ['1', '2'] } }), {}, async (uri) => ({
    contents: [{ uri: uri.href, text: 'secret item' }],
  }));
  server.registerResource('public-items', new ResourceTemplate('test://public/{id}', { list: undefined, complete: { id: () => ['a', 'b'] } }), {}, async (uri) => ({
    contents: [{ uri: uri.href, text: 'public item' }],
  }));
  server.server.setRequestHandler(z.object({ method: z.literal('resources/subscribe'), params: z.looseObject({ uri: z.string() }) }), async () => ({}));
  return server;
}

/** Calls `record` with every message the server's transport receives, before the server sees it. */
export function recordMessages(transport, record) {
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      record(message);
      deliver?.(message, extra);
    };
    await start();
  };
  return transport;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const server = createRecordingUpstream();
  const transport = recordMessages(new StdioServerTransport(), (message) => process.stderr.write(`received ${JSON.stringify(message)}\n`));
  await server.connect(transport);
}

// One behavioural suite run against every binding of the gate (test/adapter/bindings.ts), as
// hono runs one router suite over every router: what a client sees must not depend on how the
// server was built. Each binding's own byte-exact suites compare it with its ungated server;
// this one holds the bindings to the same behaviour. (test/bindings/ runs registry-centred
// cases, versioned tools and registry changes, over the two SDK bindings in memory.)
import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../src/index.js';
import { bindings, connect, prompts, resources, tools, uriOf, type Served, type Session } from './bindings.js';

/** The secret group only for requests carrying `x-role: admin`. */
const policy: PolicyDocument = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'secret-for-admins', effect: 'deny', appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
};

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
});

async function start(binding: (typeof bindings)[number]): Promise<Served> {
  const served = await binding.serve(policy);
  opened.push(served);
  return served;
}

async function open(served: Served, role: string): Promise<Session> {
  const session = await connect(served, role);
  opened.push(session.client);
  return session;
}

const toolNames = async (session: Session) => (await session.client.listTools()).tools.map((tool) => tool.name);
const promptNames = async (session: Session) => (await session.client.listPrompts()).prompts.map((prompt) => prompt.name);
const resourceNames = async (session: Session) => (await session.client.listResources()).resources.map((resource) => resource.name);

/** An answer with the name it is about replaced, to compare answers about two names. */
const about = (raw: string, name: string) => raw.split(name).join('<name>');

/** Resolves with the notification's method, or with 'none' after a bound (a missing notification fails, never hangs). */
function nextListChanged(session: Session, schema: typeof ToolListChangedNotificationSchema | typeof PromptListChangedNotificationSchema): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('none'), 5_000);
    session.client.setNotificationHandler(schema, (notification) => {
      clearTimeout(timer);
      resolve(notification.method);
    });
  });
}

describe.each(bindings)('gate: $name', (binding) => {
  it('shows each request what its own headers allow, within one session', async () => {
    const session = await open(await start(binding), 'visitor');
    expect(await toolNames(session)).toEqual(['public-tool']);
    expect(await promptNames(session)).toEqual(['public-prompt']);
    expect(await resourceNames(session)).toEqual(['public-doc']);
    session.role = 'admin';
    expect(await toolNames(session)).toEqual(['public-tool', 'secret-tool']);
    expect(await promptNames(session)).toEqual(['public-prompt', 'secret-prompt']);
    expect(await resourceNames(session)).toEqual(['public-doc', 'secret-doc']);
    session.role = 'visitor';
    expect(await toolNames(session)).toEqual(['public-tool']);
  });

  it('calls, for each request, exactly what that request lists; the rest answers as a name never registered', async () => {
    const session = await open(await start(binding), 'visitor');
    for (const role of ['visitor', 'admin']) {
      session.role = role;
      const listedTools = await toolNames(session);
      const unknownTool = about(await session.raw('tools/call', { name: 'never-registered', arguments: {} }), 'never-registered');
      for (const name of tools) {
        const called = await session.raw('tools/call', { name, arguments: {} });
        if (listedTools.includes(name))
          expect(JSON.parse(called), `${role} calls ${name}`).toEqual({ jsonrpc: '2.0', result: { content: [{ type: 'text', text: `ran ${name}` }] } });
        else expect(about(called, name), `${role} calls ${name}`).toBe(unknownTool);
      }
      const listedPrompts = await promptNames(session);
      const unknownPrompt = about(await session.raw('prompts/get', { name: 'never-registered' }), 'never-registered');
      for (const name of prompts) {
        const got = await session.raw('prompts/get', { name });
        if (listedPrompts.includes(name)) expect(JSON.parse(got), `${role} gets ${name}`).toMatchObject({ result: { messages: [{ content: { text: `prompt ${name}` } }] } });
        else expect(about(got, name), `${role} gets ${name}`).toBe(unknownPrompt);
      }
      const listedResources = await resourceNames(session);
      const unknownResource = about(await session.raw('resources/read', { uri: uriOf('never-registered') }), uriOf('never-registered'));
      for (const name of resources) {
        const read = await session.raw('resources/read', { uri: uriOf(name) });
        if (listedResources.includes(name)) expect(JSON.parse(read), `${role} reads ${name}`).toMatchObject({ result: { contents: [{ text: `read ${uriOf(name)}` }] } });
        else expect(about(read, uriOf(name)), `${role} reads ${name}`).toBe(unknownResource);
      }
    }
  });

  it('answers a hidden name byte for byte as a name never registered, and never runs it', async () => {
    const session = await open(await start(binding), 'visitor');
    const hidden = await session.raw('tools/call', { name: 'secret-tool', arguments: {} });
    // The server's own "not found": an error (McpServer 2.4, the low-level Server) or an isError result (McpServer 1.32).
    expect(hidden).toContain('secret-tool');
    expect(hidden).not.toContain('ran secret-tool');
    expect(about(hidden, 'secret-tool')).toBe(about(await session.raw('tools/call', { name: 'never-registered', arguments: {} }), 'never-registered'));
    expect(about(await session.raw('prompts/get', { name: 'secret-prompt' }), 'secret-prompt')).toBe(
      about(await session.raw('prompts/get', { name: 'never-registered' }), 'never-registered'),
    );
    expect(about(await session.raw('resources/read', { uri: uriOf('secret-doc') }), uriOf('secret-doc'))).toBe(
      about(await session.raw('resources/read', { uri: uriOf('never-registered') }), uriOf('never-registered')),
    );
  });

  it("tells a session about a new policy that changes its view, decided by its latest request's headers", async () => {
    const served = await start(binding);
    const session = await open(served, 'admin');
    expect(await toolNames(session)).toEqual(['public-tool', 'secret-tool']);
    const toolsChanged = nextListChanged(session, ToolListChangedNotificationSchema);
    // Admins lose the secret group too: the admin's view of tools and prompts changes.
    await served.setPolicy({ version: 1, default: 'allow', rules: [{ id: 'no-secrets', effect: 'deny', appliesTo: { groups: ['secret'] } }] });
    expect(await toolsChanged).toBe('notifications/tools/list_changed');
    expect(await toolNames(session)).toEqual(['public-tool']);
    expect(await promptNames(session)).toEqual(['public-prompt']);
  });
});

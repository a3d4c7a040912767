// The mcp-framework server of the test/lowlevel/mcp-framework*.test.ts files: the same tools,
// prompts and resources, with or without the secret ones, and the policy and overlay that gate them.
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { MCPPrompt, MCPResource, MCPServer, MCPTool, type MCPServerConfig } from 'mcp-framework';

// mcp-framework validates input with its own zod 3 (installed beside mcp-gate's zod 4); a tool's schema is made with that copy.
const { z } = (await import(new URL('../../node_modules/mcp-framework/node_modules/zod/index.js', import.meta.url).href)) as typeof import('zod/v3');

export const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'request.headers.x-role' }, 'admin'] } }],
};

// A tool can put `_meta` in its definition; prompts and resources cannot: the overlay annotates them.
// mcp-framework lists a resource with a template twice, as the resource (its uri) and as the template.
export const overlay = {
  metadata: {
    'prompt:secret-*': { groups: ['secret'] },
    'resource:test://docs/secret': { groups: ['secret'] },
    'resource:test://secret/*': { groups: ['secret'] },
    'template:secret-*': { groups: ['secret'] },
  },
};

/** What mcp-framework's own handlers ran: tool executions, prompt and resource reads. */
export const ran: string[] = [];

class PublicTool extends MCPTool {
  name = 'public-tool';
  description = 'Echoes its text';
  schema = { text: { type: z.string(), description: 'what to echo' } };
  async execute(input: { text: string }) {
    ran.push('tool:public-tool');
    return `echo ${input.text}`;
  }
}

class SecretTool extends MCPTool {
  name = 'secret-tool';
  description = 'A secret';
  schema = {};
  // mcp-framework types a tool's `_meta` for MCP Apps alone; at run time it is passed through to tools/list as it is.
  override get toolDefinition() {
    return { ...super.toolDefinition, _meta: { 'mcp-gate': { groups: ['secret'] } } } as unknown as MCPTool['toolDefinition'];
  }
  async execute() {
    ran.push('tool:secret-tool');
    return 'secret';
  }
}

function promptClass(name: string, text: string) {
  return class extends MCPPrompt {
    name = name;
    description = name;
    schema = {};
    async generateMessages() {
      ran.push(`prompt:${name}`);
      return [{ role: 'user', content: { type: 'text', text } }];
    }
  };
}

function resourceClass(uri: string, name: string, template?: string) {
  return class extends MCPResource {
    uri = uri;
    name = name;
    override mimeType = 'text/plain';
    protected override template = template === undefined ? undefined : { uriTemplate: template };
    async read() {
      ran.push(`resource:${name}`);
      return [{ uri, mimeType: 'text/plain', text: name }];
    }
  };
}

/** A basePath without tools/, prompts/ or resources/: everything is registered in code. */
export const basePath = join(tmpdir(), 'mcp-gate-mcp-framework-none');

export function buildMcpFramework(withSecrets: boolean, config: MCPServerConfig = {}): MCPServer {
  const server = new MCPServer({ name: 'lowlevel-test', version: '1.0.0', basePath, ...config });
  server.addTool(PublicTool);
  if (withSecrets) server.addTool(SecretTool);
  server.addPrompt(promptClass('public-prompt', 'hello'));
  if (withSecrets) server.addPrompt(promptClass('secret-prompt', 'secret'));
  server.addResource(resourceClass('test://docs/public', 'public-doc'));
  if (withSecrets) server.addResource(resourceClass('test://docs/secret', 'secret-doc'));
  server.addResource(resourceClass('test://public/1', 'public-template', 'test://public/{id}'));
  if (withSecrets) server.addResource(resourceClass('test://secret/1', 'secret-template', 'test://secret/{id}'));
  return server;
}

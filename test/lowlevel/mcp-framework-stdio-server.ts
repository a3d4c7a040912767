// The shared mcp-framework test server, gated, on mcp-framework's default transport (stdio): spawned
// by mcp-framework-stdio.test.ts with `node --import tsx`. The caller's role is its client name
// (stdio carries no headers).
import { gateMcpFramework } from '../../src/lowlevel/index.js';
import { buildMcpFramework, overlay } from './mcp-framework-server.js';

const server = buildMcpFramework(true);
const policy = {
  version: 1 as const,
  default: 'allow' as const,
  rules: [{ id: 'secret-for-admins', effect: 'deny' as const, appliesTo: { groups: ['secret'] }, when: { '!=': [{ var: 'client.name' }, 'admin'] } }],
};
await gateMcpFramework(server, { policy, overlay });
await server.start();

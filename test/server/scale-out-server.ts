// A gated 2026-07-28 endpoint in its own process, spawned twice by scale-out.test.ts (`node --import tsx`).
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { compilePolicy } from '../../src/index.js';
import { createGatedHandler, registryPolicyDocument } from './fixtures.js';

const rolloutPolicy = compilePolicy({
  ...registryPolicyDocument,
  rules: [
    ...(registryPolicyDocument.rules ?? []),
    {
      id: 'rollout-half',
      effect: 'deny',
      appliesTo: { groups: ['rollout'] },
      when: { '!==': [{ fractional: [{ cat: [{ var: 'primitive.name' }, { var: 'client.name' }] }, ['in', 50], ['out', 50]] }, 'in'] },
    },
  ],
});

const handler = createGatedHandler({ policy: rolloutPolicy, pageSize: 2 }, {}, undefined, (server) => {
  for (const name of ['insights', 'forecast', 'digest']) {
    server.registerTool(name, { _meta: { 'mcp-gate': { groups: ['rollout'] } } }, () => ({ content: [{ type: 'text', text: name }] }));
  }
});
const server = createHttpServer(toNodeHandler(handler));
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT=${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

#!/usr/bin/env node
// `npm start`: the gated demo server on http://127.0.0.1:3000/mcp (PORT to change), with a
// "who sees what" table for a few real client profiles. Ctrl-C stops it.
import { readFile } from 'node:fs/promises';
import { compilePolicy } from '../core/policy/compile-policy.js';
import { findClientProfile } from '../profiles/client-profiles.js';
import { createGate } from '../sdk/index.js';
import { startHttpHost } from '../serve/http-host.js';
import { createDemoServer, demoMetadata } from './demo-server.js';
import { formatViews, listAsCallers, type Caller } from './who-sees-what.js';

// MCP_GATE_POLICY points the demo at another policy file (the shipped one by default).
const policyPath = process.env.MCP_GATE_POLICY ?? new URL('../../policies/demo.json', import.meta.url).pathname;

function caller(label: string, profileName: string, extra: Partial<Caller> = {}): Caller {
  const profile = findClientProfile(profileName);
  return { label, clientName: profile.id, capabilities: { ...profile.capabilities }, ...extra };
}

async function main(): Promise<void> {
  const policy = compilePolicy(JSON.parse(await readFile(policyPath, 'utf8')), { source: policyPath });
  const gate = createGate({ policy, metadata: demoMetadata });
  const port = readPort(process.env.PORT);
  const host = await startHttpHost({ createServer: createDemoServer, gate, port }).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
    throw new Error(`port ${port} on 127.0.0.1 is in use; start the demo on another with PORT=${port === 65535 ? 3001 : port + 1} npm start (PORT=0 picks a free one)`);
  });
  const callers = [
    caller('Cursor', 'cursor'),
    caller('Claude Code', 'claude-code'),
    caller('VS Code', 'Visual-Studio-Code'),
    caller('VS Code + x-canary: 1', 'Visual-Studio-Code', { headers: { 'x-canary': '1' } }),
    caller('Cursor + x-tool-version: 2', 'cursor', { headers: { 'x-tool-version': '2' } }),
    caller('Claude Code on /mcp/admin', 'claude-code', { path: '/mcp/admin' }),
  ];
  console.log(`mcp-gate demo: policy ${policy.revision} serving ${host.url.href} (and ${host.url.href}/admin)\n`);
  console.log("Who sees what (real SDK clients with each product's declared capabilities):\n");
  console.log(formatViews(await listAsCallers(host.url, callers)));
  console.log(
    `\nConnect the MCP Inspector: npx @modelcontextprotocol/inspector@2.12.0 (a pinned version: on Node 20 plain npx picks 0.15.0, see README), transport "Streamable HTTP", URL ${host.url.href}`,
  );
  console.log('Add header x-canary: 1 or x-tool-version: 2 in its configuration to see the view change. Ctrl-C to stop.');

  const stop = () => {
    console.log('\nstopping…');
    host.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function readPort(text: string | undefined): number {
  if (text === undefined || text === '') return 3000;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port <= 65535)) throw new Error(`PORT must be a number from 0 to 65535, got "${text}"`);
  return port;
}

main().catch((error: unknown) => {
  console.error(`mcp-gate demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});

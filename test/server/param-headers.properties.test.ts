import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/index.js';
import { gate } from '../../src/server/index.js';
import { propertyParameters } from '../properties/seed.js';
import { inProcess, onTheWire, postModern, type Endpoint } from './http.js';

/**
 * The gate's copy of the SDK's `Mcp-Param-*` check (src/server/param-headers.ts) against the SDK
 * itself: random arguments and headers for tools gated on the envelope, every answer compared
 * on the wire with the ungated server (visible) and with one that never registered them (hidden).
 */
const extension = 'com.example/regional';
type JsonSchema = Parameters<typeof fromJsonSchema>[0];

/** Plain JSON Schema: `x-mcp-header` is an extension keyword the SDK's JSON Schema type does not list. */
const headerTools: Record<string, Record<string, unknown>> = {
  text: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
  count: { type: 'object', properties: { size: { type: 'integer', 'x-mcp-header': 'Size' } } },
  // `number` is not a permitted type: the schema is invalid, yet the SDK still checks the header.
  ratio: { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } },
  flag: { type: 'object', properties: { flag: { type: 'boolean', 'x-mcp-header': 'Flag' } } },
  nested: { type: 'object', properties: { where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } } } },
  // An annotation under `items` invalidates the whole schema: the SDK checks no header at all.
  unreachable: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } },
  },
  duplicate: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, zone: { type: 'string', 'x-mcp-header': 'region' } } },
  several: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, size: { type: 'integer', 'x-mcp-header': 'Size' } } },
};
const headerNames = ['Region', 'Size', 'Ratio', 'Flag', 'Zone', 'Tag'];

function registerHeaderTools(server: McpServer): void {
  const meta = { 'mcp-gate': { requires: { capabilities: [`extensions.${extension}`] } } };
  for (const [name, schema] of Object.entries(headerTools)) {
    server.registerTool(name, { inputSchema: fromJsonSchema(schema as JsonSchema), _meta: meta }, () => ({ content: [{ type: 'text' as const, text: `ran ${name}` }] }));
  }
}

function handlerOf(register: (server: McpServer) => void, gated: boolean): Endpoint {
  const policy = compilePolicy({ version: 1, default: 'allow', rules: [] });
  return inProcess(
    createMcpHandler((request) => {
      const server = new McpServer({ name: 'regional', version: '1.0.0' });
      register(server);
      if (gated) gate(server, { policy, request });
      return server;
    }),
  );
}

const utf8Base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
const printable = fc.stringMatching(/^[!-~][ -~]{0,6}[!-~]$|^[!-~]?$/);
const argumentValue = fc.oneof(
  fc.string({ maxLength: 6 }),
  printable,
  fc.integer({ min: -50, max: 50 }),
  fc.double({ noNaN: false, noDefaultInfinity: false }),
  fc.constant(2 ** 60),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
/** A header value derived from the body value (agreeing, re-encoded, or off by a little) or unrelated. */
const headerFor = (body: unknown) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant(String(body)),
    fc.constant(utf8Base64(String(body))),
    fc.constant(typeof body === 'number' ? `${body}.0` : `${String(body)}x`),
    fc.constant('=?base64?@@?='),
    printable,
  );

const callArbitrary = fc
  .record({
    tool: fc.constantFrom(...Object.keys(headerTools)),
    values: fc.record({ region: argumentValue, size: argumentValue, ratio: argumentValue, flag: argumentValue, zone: argumentValue }),
  })
  .chain(({ tool, values }) =>
    fc.record({
      tool: fc.constant(tool),
      args: fc.constant({ ...values, where: { zone: values.zone }, tags: [values.region] }),
      headers: fc.tuple(...headerNames.map((name) => headerFor(values[name.toLowerCase() as keyof typeof values] ?? values.region))),
    }),
  );

describe('gate (mcp-gate/server) Mcp-Param-* check ≡ the SDK’s, over random arguments and headers', () => {
  it('answers visible calls as the ungated server and hidden calls as a server without the tools, on the wire', async () => {
    const gated = handlerOf(registerHeaderTools, true);
    const ungated = handlerOf(registerHeaderTools, false);
    // Same capabilities, none of the header tools.
    const unregistered = handlerOf((server) => server.registerTool('other', {}, () => ({ content: [] })), false);
    const runs = 120;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(callArbitrary, async ({ tool, args, headers }) => {
        const headerValues: Record<string, string> = {};
        headerNames.forEach((name, index) => {
          const value = headers[index];
          if (value !== undefined) headerValues[`mcp-param-${name.toLowerCase()}`] = value;
        });
        const params = { name: tool, arguments: args };
        const visible = { capabilities: { extensions: { [extension]: {} } }, headers: headerValues };
        const hidden = { capabilities: {}, headers: headerValues };
        const [gatedVisible, ungatedVisible, gatedHidden, neverRegistered] = await Promise.all([
          postModern(gated, 'tools/call', params, visible),
          postModern(ungated, 'tools/call', params, visible),
          postModern(gated, 'tools/call', params, hidden),
          postModern(unregistered, 'tools/call', params, hidden),
        ]);
        if (ungatedVisible.status === 400) rejected++;
        expect(onTheWire(gatedVisible)).toEqual(onTheWire(ungatedVisible));
        expect(onTheWire(gatedHidden)).toEqual(onTheWire(neverRegistered));
      }),
      propertyParameters(runs),
    );
    // The runs exercise both outcomes of the check, not only one.
    console.log(`Mcp-Param-* property: ${rejected} of ${runs} visible calls rejected by the SDK`);
    expect(rejected).toBeGreaterThan(runs / 10);
    expect(rejected).toBeLessThan(runs - runs / 10);
    await Promise.all([gated.close(), ungated.close(), unregistered.close()]);
  });
});

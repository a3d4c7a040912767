import { describe, expect, it } from 'vitest';
import { createRequestContext, requestContextSchema } from '../../../src/core/context.js';
import { createPrimitiveMetadata, primitiveMetadataSchema } from '../../../src/core/primitive-metadata.js';
import { checkCapabilityName, checkContextPath, clientCapabilityNames, contextShape, type PathShape } from '../../../src/core/policy/context-shape.js';
import { contextRoots } from '../../../src/core/policy/context-scope.js';

// The path vocabulary of context-shape.ts must be the real context's: every field a context or
// a primitive can have is known, and nothing else is.

/** Every field path of a shape, down to the free-form maps and lists. */
function fieldPaths(shape: PathShape, at: string): string[] {
  if (shape.kind !== 'record') return [at];
  return [at, ...Object.entries(shape.fields).flatMap(([name, field]) => fieldPaths(field, `${at}.${name}`))];
}

/** Every field path of a full context or primitive (optional fields given), down to the values. */
function valuePaths(value: unknown, at: string, stopAt: ReadonlySet<string>): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || stopAt.has(at)) return [at];
  return [at, ...Object.keys(value).flatMap((key) => valuePaths((value as Record<string, unknown>)[key], `${at}.${key}`, stopAt))];
}

const freeForm = new Set(['request.headers', 'client.capabilities', 'auth.claims', 'primitive.requires.headers']);

describe('contextShape', () => {
  it('has exactly the var roots the compiler accepts', () => {
    expect(Object.keys(contextShape).sort()).toEqual([...contextRoots].sort());
    expect(contextShape.tool).toBe(contextShape.primitive);
  });

  it('knows every field of a full RequestContext, and no other', () => {
    const context = createRequestContext({
      request: { method: 'tools/call', headers: { 'x-a': '1' }, endpoint: '/mcp', sessionId: 's', protocolVersion: '2025-11-25' },
      client: { name: 'c', version: '1.0.0', capabilities: { sampling: {} } },
      auth: { clientId: 'id', subject: 'sub', issuer: 'https://issuer', scopes: ['a'], claims: { org: 'x' } },
    });
    const real = ['request', 'client', 'auth'].flatMap((root) => valuePaths(context[root as 'request'], root, freeForm));
    const known = ['request', 'client', 'auth'].flatMap((root) => fieldPaths(contextShape[root]!, root));
    expect(known.sort()).toEqual(real.sort());
    // The schema a context is checked against (explain --context) has the same fields.
    expect(Object.keys(requestContextSchema.shape).sort()).toEqual(['auth', 'client', 'request']);
    for (const root of ['request', 'client', 'auth'] as const) {
      const shape = contextShape[root]!;
      expect(shape.kind === 'record' && Object.keys(shape.fields).sort()).toEqual(Object.keys(requestContextSchema.shape[root].shape).sort());
    }
  });

  it('knows every field of full PrimitiveMetadata, and no other', () => {
    const metadata = createPrimitiveMetadata(
      'resourceTemplate',
      'r',
      { version: '1.0.0', groups: ['g'], tags: ['t'], requires: { capabilities: ['sampling'], headers: { 'x-a': '1' } }, endpoints: ['/mcp'] },
      { uri: 'file:///r', uriTemplate: 'file:///{name}' },
    );
    const real = valuePaths(metadata, 'primitive', freeForm);
    expect(fieldPaths(contextShape.primitive!, 'primitive').sort()).toEqual(real.sort());
    const shape = contextShape.primitive!;
    expect(shape.kind === 'record' && Object.keys(shape.fields).sort()).toEqual(Object.keys(primitiveMetadataSchema.shape).sort());
  });

  it('accepts every field path it knows', () => {
    for (const root of Object.keys(contextShape)) {
      for (const path of fieldPaths(contextShape[root]!, root)) expect(checkContextPath(path.split('.')), path).toBeUndefined();
    }
  });
});

describe('checkCapabilityName', () => {
  it('knows the top-level names of the protocol ClientCapabilities', () => {
    expect(clientCapabilityNames).toEqual(['sampling', 'elicitation', 'roots', 'tasks', 'experimental', 'extensions']);
    for (const name of clientCapabilityNames) expect(checkCapabilityName(`${name}.x`)).toBeUndefined();
    expect(checkCapabilityName('extensions.com.example/report-export')).toBeUndefined();
  });

  it('warns about any other name, with a suggestion when one is close', () => {
    expect(checkCapabilityName('sampeling.tools')).toEqual({
      severity: 'warning',
      code: 'unknown_capability',
      message: 'unknown client capability "sampeling" (did you mean "sampling"?); MCP clients declare sampling, elicitation, roots, tasks, experimental and extensions.*',
    });
    expect(checkCapabilityName('com.example/report-export')?.message).toBe(
      'unknown client capability "com"; MCP clients declare sampling, elicitation, roots, tasks, experimental and extensions.*',
    );
  });
});

import fc from 'fast-check';
import { createPrimitiveMetadata, createRequestContext } from '../../src/core/context.js';

// Small value domains on purpose: random contexts then collide often, which is what a cache
// key must get exactly right (equal on what is read ⇔ may share an answer).

const capabilityPaths = ['sampling', 'roots', 'elicitation', 'elicitation.url', 'extensions.com.example/report-export'];

const capabilities = fc.option(
  fc.record(
    {
      sampling: fc.constant({}),
      roots: fc.constantFrom({}, { listChanged: true }),
      elicitation: fc.constantFrom({}, { url: {} }, { form: {} }),
      extensions: fc.constantFrom({}, { 'com.example/report-export': {} }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

export const requestContext = fc
  .record({
    canary: fc.constantFrom(undefined, '1', '0'),
    version: fc.constantFrom(undefined, '1', '2'),
    endpoint: fc.constantFrom('/mcp', '/mcp/admin', '/mcp/admin/users', ''),
    clientName: fc.constantFrom(undefined, 'cursor', 'claude-code', 'vscode'),
    clientVersion: fc.constantFrom(undefined, '1.0.0', '2.3.1', '0.9.0'),
    capabilities,
    subject: fc.constantFrom(undefined, 'alice', 'bob'),
    scopes: fc.subarray(['read', 'write', 'admin']),
    sessionId: fc.constantFrom(undefined, 's1', 's2'),
  })
  .map((input) => {
    const headers: Record<string, string> = {};
    if (input.canary !== undefined) headers['x-canary'] = input.canary;
    if (input.version !== undefined) headers['x-tool-version'] = input.version;
    return createRequestContext({
      request: { method: 'tools/list', headers, endpoint: input.endpoint, sessionId: input.sessionId },
      client: { name: input.clientName, version: input.clientVersion, capabilities: input.capabilities },
      auth: { subject: input.subject, scopes: input.scopes },
    });
  });

export const primitiveMetadata = fc
  .record({
    kind: fc.constantFrom('tool', 'prompt', 'resource', 'resourceTemplate') as fc.Arbitrary<'tool' | 'prompt' | 'resource' | 'resourceTemplate'>,
    name: fc.constantFrom('search', 'deploy', 'admin_users', 'summarize', 'greet', 'notes'),
    groups: fc.subarray(['canary', 'beta', 'admin']),
    tags: fc.subarray(['experimental', 'read-only']),
    capabilities: fc.subarray(capabilityPaths, { maxLength: 2 }),
    needsCanaryHeader: fc.boolean(),
    endpoints: fc.subarray(['/mcp/admin', '/mcp/admin/**', '/mcp']),
  })
  .map((input) =>
    createPrimitiveMetadata(input.kind, input.name, {
      groups: input.groups,
      tags: input.tags,
      requires: { capabilities: input.capabilities, headers: input.needsCanaryHeader ? { 'X-Canary': '1' } : {} },
      endpoints: input.endpoints,
    }),
  );

const condition: fc.Arbitrary<unknown> = fc.letrec<{ condition: unknown }>((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('x-canary', 'x-tool-version').chain((name) =>
      fc.constantFrom('1', '2').map((value) => ({ '==': [{ var: `request.headers.${name}` }, value] })),
    ),
    fc.constantFrom(...capabilityPaths).map((path) => ({ has: path })),
    fc.constantFrom('/mcp/admin/**', '/mcp/*', '/mcp').map((pattern) => ({ glob: [pattern, { var: 'request.endpoint' }] })),
    fc.constantFrom('read', 'admin').map((scope) => ({ in: [scope, { var: 'auth.scopes' }] })),
    fc.constantFrom('cursor', 'vscode').map((name) => ({ '==': [{ var: 'client.name' }, name] })),
    fc.constantFrom('canary', 'beta').map((group) => ({ in: [group, { var: 'primitive.groups' }] })),
    fc.constantFrom('>=', '<').map((op) => ({ sem_ver: [{ var: 'client.version' }, op, '1.0.0'] })),
    fc.constantFrom(10, 50).map((weight) => ({
      '==': [{ fractional: [['on', weight], ['off', 100 - weight]] }, 'on'],
    })),
    tie('condition').map((inner) => ({ '!': [inner] })),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ and: items })),
    fc.array(tie('condition'), { minLength: 1, maxLength: 3 }).map((items) => ({ or: items })),
  ),
})).condition;

const rule = fc.record(
  {
    effect: fc.constantFrom('allow', 'deny'),
    appliesTo: fc.record(
      {
        kinds: fc.subarray(['tool', 'prompt', 'resource', 'resourceTemplate'], { minLength: 1 }),
        groups: fc.subarray(['canary', 'beta', 'admin'], { minLength: 1 }),
        names: fc.subarray(['admin_*', 's*', '*'], { minLength: 1 }),
      },
      { requiredKeys: [] },
    ),
    when: condition,
  },
  { requiredKeys: ['effect'] },
);

export const policyDocument = fc
  .record({
    default: fc.constantFrom('allow', 'deny'),
    enforceRequirements: fc.boolean(),
    rules: fc.array(rule, { maxLength: 5 }),
  })
  .map((document) => ({
    version: 1,
    ...document,
    rules: document.rules.map((item, index) => ({ id: `rule-${index}`, ...item })),
  }));

import { describe, expect, it } from 'vitest';
import { createRequestContext } from '../../src/core/context.js';
import { createDecisionLogger, isCredentialHeader, type DecisionLogInput } from '../../src/serve/decision-log.js';

const context = createRequestContext({
  request: {
    method: 'tools/call',
    endpoint: '/mcp',
    sessionId: 'session-3f2a',
    headers: { 'X-Canary': '1', authorization: 'Bearer token-123', 'x-tenant': 'acme', cookie: 'sid=abc' },
  },
  client: { name: 'cursor-vscode', version: '1.2.0', capabilities: { roots: {} } },
  auth: { subject: 'user-42', clientId: 'oauth-client', scopes: ['admin'], claims: { email: 'a@example.com' } },
});

const call: DecisionLogInput = {
  time: '2026-01-02T03:04:05.678Z',
  requestId: 7,
  method: 'tools/call',
  primitive: { kind: 'tool', name: 'deploy_preview' },
  allowed: false,
  reason: 'rule',
  ruleId: 'canary-needs-header',
  message: 'denied by rule "canary-needs-header": canary only with x-canary: 1',
  policyRevision: '16eb5acf2cc82f69',
  context,
};

function logText(events: readonly DecisionLogInput[], logHeaders?: readonly string[], logCredentialHeaders?: boolean): string[] {
  const lines: string[] = [];
  const log = createDecisionLogger({ write: (line) => lines.push(line), logHeaders, logCredentialHeaders });
  for (const event of events) log(event);
  return lines;
}

function logLines(events: readonly DecisionLogInput[], logHeaders?: readonly string[]): unknown[] {
  const lines: string[] = [];
  const log = createDecisionLogger({ write: (line) => lines.push(line), logHeaders });
  for (const event of events) log(event);
  for (const line of lines) expect(line).toMatch(/^\{[^\n]*\}\n$/);
  return lines.map((line) => JSON.parse(line) as unknown);
}

describe('createDecisionLogger', () => {
  it('writes one JSON line per decision with the documented fields, in order', () => {
    const [record] = logLines([call]);
    expect(Object.keys(record as object)).toEqual([
      'time',
      'requestId',
      'method',
      'primitive',
      'allowed',
      'reason',
      'ruleId',
      'message',
      'policyRevision',
      'endpoint',
      'client',
    ]);
    expect(record).toEqual({
      time: '2026-01-02T03:04:05.678Z',
      requestId: 7,
      method: 'tools/call',
      primitive: { kind: 'tool', name: 'deploy_preview' },
      allowed: false,
      reason: 'rule',
      ruleId: 'canary-needs-header',
      message: 'denied by rule "canary-needs-header": canary only with x-canary: 1',
      policyRevision: '16eb5acf2cc82f69',
      endpoint: '/mcp',
      client: 'cursor-vscode',
    });
  });

  it('keeps no header value, auth detail or session id unless a header is allow-listed by name', () => {
    const text = JSON.stringify(logLines([call]));
    for (const secret of ['token-123', 'acme', 'sid=abc', 'user-42', 'oauth-client', 'a@example.com', 'session-3f2a', 'admin"']) expect(text).not.toContain(secret);
    const [record] = logLines([call], ['X-Canary', 'x-tenant', 'x-absent']);
    expect((record as { headers: unknown }).headers).toEqual({ 'x-canary': '1', 'x-tenant': 'acme' });
    expect(JSON.stringify(record)).not.toContain('token-123');
  });

  it('logs an allow-listed credential header as "[redacted]", and its value only when asked for', () => {
    const credentialContext = createRequestContext({
      request: {
        method: 'tools/call',
        endpoint: '/mcp',
        headers: { authorization: 'Bearer token-123', cookie: 'sid=abc', 'x-api-key': 'key-9a8b7c', 'x-vault-token': 'hvs.s3cret', 'x-canary': '1' },
      },
    });
    const event = { ...call, context: credentialContext };
    const names = ['Authorization', 'cookie', 'x-api-key', 'x-vault-token', 'x-canary'];
    const tail = '"policyRevision":"16eb5acf2cc82f69","endpoint":"/mcp"';
    const head =
      '{"time":"2026-01-02T03:04:05.678Z","requestId":7,"method":"tools/call","primitive":{"kind":"tool","name":"deploy_preview"},"allowed":false,"reason":"rule","ruleId":"canary-needs-header","message":"denied by rule \\"canary-needs-header\\": canary only with x-canary: 1",';
    expect(logText([event], names)).toEqual([
      `${head}${tail},"headers":{"authorization":"[redacted]","cookie":"[redacted]","x-api-key":"[redacted]","x-vault-token":"[redacted]","x-canary":"1"}}\n`,
    ]);
    expect(logText([event], names, true)).toEqual([
      `${head}${tail},"headers":{"authorization":"Bearer token-123","cookie":"sid=abc","x-api-key":"key-9a8b7c","x-vault-token":"hvs.s3cret","x-canary":"1"}}\n`,
    ]);
  });

  it.each([
    ['authorization', true],
    ['proxy-authorization', true],
    ['cookie', true],
    ['set-cookie', true],
    ['x-api-key', true],
    ['x-auth-token', true],
    ['x-goog-api-key', true],
    ['x-hub-signature-256', true],
    ['x-client-secret', true],
    ['mcp-session-id', true],
    ['x_access_token', true],
    ['x-canary', false],
    ['x-tool-version', false],
    ['x-tenant', false],
    ['user-agent', false],
    ['x-author', false],
  ])('counts %s as a credential header: %s', (name, credential) => {
    expect(isCredentialHeader(name)).toBe(credential);
  });

  it('summarizes a list by its counts', () => {
    const [record] = logLines([
      {
        ...call,
        method: 'tools/list',
        primitive: undefined,
        ruleId: undefined,
        allowed: true,
        reason: 'list',
        message: '3 visible, 2 hidden',
        counts: { visible: 3, hidden: 2 },
      },
    ]);
    expect(record).toEqual({
      time: call.time,
      requestId: 7,
      method: 'tools/list',
      allowed: true,
      reason: 'list',
      visible: 3,
      hidden: 2,
      policyRevision: call.policyRevision,
      endpoint: '/mcp',
      client: 'cursor-vscode',
    });
  });

  it('drops the sentence of a requirement (it names required header values) and of an error (it may quote data)', () => {
    const [requirement, error] = logLines([
      { ...call, reason: 'requirement', ruleId: undefined, message: 'requires header "x-api-key: s3cret"' },
      { ...call, reason: 'error', message: 'rule "r" failed (hidden, fail closed): string longer than 4096: "…"' },
    ]);
    expect(requirement).toMatchObject({ reason: 'requirement', allowed: false });
    expect(requirement).not.toHaveProperty('message');
    expect(error).toMatchObject({ reason: 'error', ruleId: 'canary-needs-header' });
    expect(error).not.toHaveProperty('message');
  });

  it('writes null for a request without an id and leaves out a client without a name', () => {
    const [record] = logLines([{ ...call, requestId: undefined, context: createRequestContext({ request: { endpoint: '' } }) }]);
    expect(record).toMatchObject({ requestId: null, endpoint: '' });
    expect(record).not.toHaveProperty('client');
  });
});

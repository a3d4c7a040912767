import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePolicy, createPrimitiveMetadata, createRequestContext } from '../src/index.js';

// The README's code-first quick start, run as written: the statements below are the README's
// (the first ts block), and the first test checks the README still says so.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README quick start', () => {
  const policy = compilePolicy({
    version: 1,
    default: 'allow',
    rules: [
      {
        id: 'canary-needs-header',
        effect: 'deny',
        appliesTo: { groups: ['canary'] },
        when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] },
      },
    ],
  });
  const deploy = createPrimitiveMetadata('tool', 'deploy', { groups: ['canary'] });
  const summarize = createPrimitiveMetadata('tool', 'summarize', { requires: { capabilities: ['sampling'] } });
  const request = createRequestContext({
    request: { method: 'tools/list', headers: { 'X-Canary': '1' }, endpoint: '/mcp' },
    client: { name: 'cursor', capabilities: { roots: {} } },
  });

  it('is the example the README shows', () => {
    for (const line of [
      "const deploy = createPrimitiveMetadata('tool', 'deploy', { groups: ['canary'] });",
      "const summarize = createPrimitiveMetadata('tool', 'summarize', { requires: { capabilities: ['sampling'] } });",
      "  request: { method: 'tools/list', headers: { 'X-Canary': '1' }, endpoint: '/mcp' },",
      "  client: { name: 'cursor', capabilities: { roots: {} } },",
      "      when: { '!=': [{ var: 'request.headers.x-canary' }, '1'] },",
    ]) {
      expect(readme).toContain(line);
    }
  });

  it('gives the results the README comments promise', () => {
    expect(policy.evaluate(request, deploy)).toBe(true);
    expect(policy.explain(request, summarize)).toMatchObject({ allowed: false, reason: 'requirement', message: 'requires client capability "sampling"' });
    expect(readme).toContain('policy.evaluate(request, deploy); // true');
    expect(readme).toContain(`policy.explain(request, summarize); // { allowed: false, reason: 'requirement', message: 'requires client capability "sampling"' }`);
  });
});

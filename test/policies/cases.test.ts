import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCaseContext, parseCasesFile } from '../../src/cli/cases.js';
import { toMetadata } from '../../src/cli/manifest.js';
import { compilePolicy } from '../../src/index.js';

// Every policies/<name>.cases.json, run through the library itself (compilePolicy + explain), one
// test per case, so a failing case names itself in the test report.

const policiesDirectory = new URL('../../policies/', import.meta.url);
const casesFiles = readdirSync(policiesDirectory).filter((file) => file.endsWith('.cases.json')).sort();
const uses = ['canary-by-header', 'beta-group', 'capability-gating', 'endpoint-scoped', 'version-routing', 'percentage-rollout', 'demo'];

describe('policies/*.cases.json', () => {
  it('cover every shipped use, each policy with its cases file', () => {
    for (const use of uses) {
      expect(existsSync(new URL(`${use}.json`, policiesDirectory)), `${use}.json`).toBe(true);
      expect(casesFiles, `${use}.cases.json`).toContain(`${use}.cases.json`);
    }
  });

  const total = casesFiles.reduce((count, file) => count + loadCases(file).cases.length, 0);
  it('hold cases (a nonzero count)', () => {
    expect(total).toBeGreaterThan(0);
  });

  describe.each(casesFiles)('%s', (file) => {
    const { cases, policyPath } = loadCases(file);
    const policy = compilePolicy(JSON.parse(readFileSync(policyPath, 'utf8')), { source: policyPath });

    it.each(cases.map((policyCase) => [policyCase.name, policyCase] as const))('%s', (_name, policyCase) => {
      const decision = policy.explain(buildCaseContext(policyCase.context), toMetadata(policyCase.primitive));
      const actual = {
        allowed: decision.allowed,
        ...(policyCase.expect.reason === undefined ? {} : { reason: decision.reason }),
        ...(policyCase.expect.ruleId === undefined ? {} : { ruleId: decision.ruleId }),
      };
      expect(actual, decision.message).toEqual(policyCase.expect);
    });
  });
});

function loadCases(file: string) {
  const path = fileURLToPath(new URL(file, policiesDirectory));
  return parseCasesFile(JSON.parse(readFileSync(path, 'utf8')), path, `policies/${file}`);
}

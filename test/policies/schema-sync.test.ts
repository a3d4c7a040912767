import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { policySchemaPath, policySchemaText } from '../../scripts/write-policy-schema.js';

const policiesDirectory = new URL('../../policies/', import.meta.url);

describe('policies/policy.schema.json', () => {
  it('equals createPolicyJsonSchema() (regenerate with: npx tsx scripts/write-policy-schema.ts)', () => {
    expect(readFileSync(policySchemaPath, 'utf8')).toBe(policySchemaText());
  });

  it('is what every shipped policy points its $schema at', () => {
    const policyFiles = readdirSync(policiesDirectory).filter((file) => file.endsWith('.json') && !/\.(cases|schema|manifest)\.json$/.test(file));
    expect(policyFiles.length).toBeGreaterThanOrEqual(7);
    for (const file of policyFiles) {
      const document = JSON.parse(readFileSync(new URL(file, policiesDirectory), 'utf8')) as { $schema?: unknown };
      expect(document.$schema, file).toBe('./policy.schema.json');
    }
  });
});

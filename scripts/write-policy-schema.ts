// Writes policies/policy.schema.json from the zod schema, so editors check policy files against
// exactly what compilePolicy accepts. `--check` only compares (exit 1 when the file is stale);
// test/policies/schema-sync.test.ts does the same in the test suite.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createPolicyJsonSchema } from '../src/index.js';

export const policySchemaPath = fileURLToPath(new URL('../policies/policy.schema.json', import.meta.url));

/** The file's exact text: two-space JSON and a final newline, as the other policy files. */
export function policySchemaText(): string {
  return `${JSON.stringify(createPolicyJsonSchema(), null, 2)}\n`;
}

async function main(check: boolean): Promise<number> {
  const wanted = policySchemaText();
  const current = await readFile(policySchemaPath, 'utf8').catch(() => undefined);
  if (current === wanted) {
    console.log(`${policySchemaPath}: up to date`);
    return 0;
  }
  if (check) {
    console.error(`${policySchemaPath}: out of date; run "npx tsx scripts/write-policy-schema.ts"`);
    return 1;
  }
  await writeFile(policySchemaPath, wanted);
  console.log(`${policySchemaPath}: written`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.includes('--check'));
}

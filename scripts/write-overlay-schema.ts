// Writes docs/overlay.schema.json from the zod schema compileOverlay checks overlay files
// with. `--check` only compares; test/wire/overlay.test.ts does the same in the test suite.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createOverlayJsonSchema } from '../src/wire/overlay.js';

export const overlaySchemaPath = fileURLToPath(new URL('../docs/overlay.schema.json', import.meta.url));

export function overlaySchemaText(): string {
  return `${JSON.stringify(createOverlayJsonSchema(), null, 2)}\n`;
}

async function main(check: boolean): Promise<number> {
  const wanted = overlaySchemaText();
  const current = await readFile(overlaySchemaPath, 'utf8').catch(() => undefined);
  if (current === wanted) return 0;
  if (check) {
    console.error(`${overlaySchemaPath}: out of date; run "npx tsx scripts/write-overlay-schema.ts"`);
    return 1;
  }
  await writeFile(overlaySchemaPath, wanted);
  console.log(`${overlaySchemaPath}: written`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.includes('--check'));
}

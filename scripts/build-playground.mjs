// `npm run build:playground [-- OUT_DIR]`: bundles the playground (playground/src, the core
// imported as is) into one classic script beside index.html, in OUT_DIR (default dist/playground).
// One script, no module imports and nothing from another origin, so the folder works from
// file:// and any static host; `mcp-gate playground` serves the same folder.
import { copyFileSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(process.argv[2] ?? join(root, 'dist', 'playground'));

/** `import text from './file.json?text'` gives the file's text (the policy exactly as written). */
const textImports = {
  name: 'text-imports',
  setup(context) {
    context.onResolve({ filter: /\?text$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.slice(0, -'?text'.length)), namespace: 'text' }));
    context.onLoad({ filter: /.*/, namespace: 'text' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text' }));
  },
};

mkdirSync(outDir, { recursive: true });
const result = await build({
  entryPoints: [join(root, 'playground', 'src', 'main.ts')],
  // Written aside and renamed into place, so a server reading the folder never sees half a file.
  outfile: join(outDir, `.playground.${process.pid}.js`),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  metafile: true,
  plugins: [textImports],
  logLevel: 'warning',
});
renameSync(join(outDir, `.playground.${process.pid}.js`), join(outDir, 'playground.js'));
copyFileSync(join(root, 'playground', 'index.html'), join(outDir, `.index.${process.pid}.html`));
renameSync(join(outDir, `.index.${process.pid}.html`), join(outDir, 'index.html'));
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
// On stderr: `npm pack --json` runs this in prepack, and its stdout must stay JSON.
console.error(`playground: ${outDir} (playground.js ${(bytes / 1024).toFixed(0)} kB)`);

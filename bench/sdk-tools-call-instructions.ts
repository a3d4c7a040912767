// tools/call of one HTTP-shaped request (issue 11 item 11), counted in machine instructions
// instead of timed: a count does not move with the machine's load, which on a shared 2-core box
// makes timings of a ~2 µs difference unreadable. Needs valgrind.
//
// The driver (this file, run plainly) runs this same file under callgrind with
// `--dump-before=uv_loadavg`: the measured process calls os.loadavg() between segments, so
// callgrind dumps the instructions of each segment separately (startup and warm-up land in the
// first dump and are ignored). Segments alternate ungated, gated and a second ungated server (the
// A/A control), after a warm-up of every case, first over the in-memory transport, then at
// handler level. V8 runs --single-threaded, so compilation and GC are counted in the segment that
// caused them and not on other threads. Each case runs in a loop function of its own, compiled
// from its own source: with one loop shared by the cases, its call site saw every case's handler
// and TurboFan deoptimized and recompiled it inside the gated segments (~85k instructions a call
// of compiler work charged to the gate). The figure per case is the median of its segments: a
// case's segments still fall in two modes about 5k instructions a call apart (ungated ones too),
// so neither a single round nor the cheapest segment reads the gate's cost reliably. The
// measured process runs this file bundled by esbuild (startup under valgrind is shorter than
// through tsx's loader).
// Run: npm run bench:call-instructions (ROUNDS=n segments per case, 5 by default; CALLS=n calls
// per segment; WARMUP=n calls per case before counting; LEVELS=transport or LEVELS=handler for
// one level; DUMPS=dir keeps the segments' callgrind files).
// Takes minutes on an idle machine (valgrind runs V8 about 50 times slower), far longer on a busy one.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import { assertSameJson, connectClient, createBenchServer, createHttpExtra, storedHandler } from './sdk-harness.js';

const rounds = Number(process.env['ROUNDS'] ?? 5);
const calls = Number(process.env['CALLS'] ?? 1000);
const warmup = Number(process.env['WARMUP'] ?? 6000);
const levelNames = { transport: 'in-memory transport', handler: 'handler level' } as const;
const levels = (process.env['LEVELS'] ?? 'transport,handler').split(',').map((level) => {
  if (!(level in levelNames)) throw new Error(`LEVELS: unknown level "${level}"; use transport, handler or both`);
  return level as keyof typeof levelNames;
});
const caseIds = ['ungated', 'gated', 'ungated again'] as const;

// Declared before the top-level await below runs the segments, which use it.
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...parameters: string[]) => (...values: unknown[]) => Promise<void>;

if (process.env['MCP_GATE_SEGMENTS'] === '1') await runSegments();
else await drive();

/** Under callgrind: every case of a level warmed up, then `rounds` × (ungated, gated, control) segments, each ended by a marker. */
async function runSegments(): Promise<void> {
  const request = { method: 'tools/call', params: { name: 'tool-500', arguments: { query: 'hello', limit: 3 } } };
  const callRequest = { method: 'tools/call' as const, params: request.params };
  // Servers and clients exist only for the levels measured: nothing else grows the heap that a
  // segment's GC walks.
  const clients = levels.includes('transport')
    ? [
        await connectClient(createBenchServer(false), { http: true }),
        await connectClient(createBenchServer(true), { http: true }),
        await connectClient(createBenchServer(false), { http: true }),
      ]
    : [];
  const handlers = levels.includes('handler')
    ? [createBenchServer(false), createBenchServer(true), createBenchServer(false)].map((server) => storedHandler(server, 'tools/call'))
    : [];
  let requestId = 0;
  const extra = (): unknown => createHttpExtra(++requestId);
  const casesOf: Record<keyof typeof levelNames, Array<(count: number) => Promise<void>>> = {
    transport: clients.map((client, index) => caseLoop(`transport ${caseIds[index]}`, 'await target.request(argument, helper)', client, callRequest, CallToolResultSchema)),
    handler: handlers.map((handler, index) => caseLoop(`handler ${caseIds[index]}`, 'await target(argument, helper())', handler, request, extra)),
  };
  const runs = levels.map((level) => casesOf[level]);
  for (const [index, level] of levels.entries()) {
    const check =
      level === 'transport' ? clients.map((client) => () => client.request(callRequest, CallToolResultSchema)) : handlers.map((handler) => () => handler(request, extra()));
    const expected = await check[0]!();
    for (const run of check) assertSameJson(`tools/call (${levelNames[levels[index]!]})`, await run(), expected);
  }
  for (const cases of runs) {
    // Warmed in alternating halves, through the same loops the segments run.
    for (let half = 0; half < 2; half++) for (const loop of cases) await loop(warmup / 2);
    loadavg(); // marker: the segment before (startup, warm-up) ends here
    for (let round = 0; round < rounds; round++) {
      for (const loop of cases) {
        await loop(calls);
        loadavg(); // marker: one case's segment ends
      }
    }
  }
  await Promise.all(clients.map((client) => client.close()));
}

async function drive(): Promise<void> {
  // DUMPS=dir keeps the segments' callgrind files there, to compare with callgrind_annotate.
  const kept = process.env['DUMPS'];
  const directory = kept ?? mkdtempSync(join(tmpdir(), 'mcp-gate-instructions-'));
  // The bundle sits below node_modules so that its external packages resolve from the project's.
  const cacheDirectory = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  mkdirSync(cacheDirectory, { recursive: true }); // absent after a fresh npm ci
  const bundleDirectory = mkdtempSync(join(cacheDirectory, 'mcp-gate-instructions-'));
  const bundle = join(bundleDirectory, 'bench.mjs');
  try {
    await build({ entryPoints: [fileURLToPath(import.meta.url)], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'warning' });
    const valgrind = spawnSync(
      'valgrind',
      [
        '--tool=callgrind',
        '--smc-check=all-non-file', // V8 writes and rewrites machine code on its heap
        '--dump-before=uv_loadavg',
        `--callgrind-out-file=${join(directory, 'segment')}`,
        process.execPath,
        '--single-threaded',
        bundle,
      ],
      { env: { ...process.env, MCP_GATE_SEGMENTS: '1' }, encoding: 'utf8' },
    );
    if (valgrind.error) throw new Error(`bench:call-instructions needs valgrind on the PATH: ${valgrind.error.message}`);
    if (valgrind.status !== 0) throw new Error(`the measured process failed (exit ${valgrind.status}):\n${valgrind.stderr.slice(-2000)}`);
    // segment.1 is startup up to the first marker; each level adds one warm-up dump then rounds × cases segments.
    const dumps = readdirSync(directory)
      .filter((name) => /^segment\.\d+$/.test(name))
      .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
      .map((name) => Number(/^summary: (\d+)$/m.exec(readFileSync(join(directory, name), 'utf8'))?.[1]));
    const perLevel = rounds * caseIds.length;
    console.log(`tools/call, HTTP-shaped request (8 headers, auth with scopes, /mcp/admin): instructions per call (callgrind), ${calls} calls a segment`);
    for (const [index, level] of levels.entries()) {
      const label = levelNames[level];
      const first = 1 + index * (perLevel + 1);
      const segments: number[][] = [[], [], []];
      for (let round = 0; round < rounds; round++) {
        const [ungated, gated, control] = caseIds.map((_, index) => dumps[first + round * caseIds.length + index]! / calls);
        for (const [index, value] of [ungated!, gated!, control!].entries()) segments[index]!.push(value);
        console.log(
          `  ${label}, round ${round + 1}: ungated ${fmt(ungated!)}, gated ${fmt(gated!)}, ungated again ${fmt(control!)}` +
            ` | gated/ungated = ${(gated! / ((ungated! + control!) / 2)).toFixed(3)}x, A/A control = ${(control! / ungated!).toFixed(3)}x`,
        );
      }
      const [ungated, gated, control] = segments.map(median) as [number, number, number];
      console.log(
        `  ${label}, median of each case's segments: ungated ${fmt(ungated)}, gated ${fmt(gated)}, ungated again ${fmt(control)}` +
          ` | gated/ungated = ${(gated / ((ungated + control) / 2)).toFixed(3)}x, A/A control = ${(control / ungated).toFixed(3)}x`,
      );
    }
    console.log(
      `load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')}`,
    );
  } finally {
    if (kept === undefined) rmSync(directory, { recursive: true, force: true });
    rmSync(bundleDirectory, { recursive: true, force: true });
  }
}

/**
 * A case's loop, `count` times `step`, as a function of its own: the label in its source keeps
 * V8's compilation cache from handing two cases the same function (and so the same feedback and
 * optimized code).
 */
function caseLoop(label: string, step: string, target: unknown, argument: unknown, helper: unknown): (count: number) => Promise<void> {
  const loop = new AsyncFunction('target', 'argument', 'helper', 'count', `// ${label}\nfor (let index = 0; index < count; index++) ${step};`);
  return (count) => loop(target, argument, helper, count);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function fmt(instructions: number): string {
  return `${(instructions / 1000).toFixed(1)}k`;
}

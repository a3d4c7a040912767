// Core benchmarks of issue 2: three policy shapes, each as one evaluation and as filtering 1,000
// primitives, for mcp-gate, json-logic-js `apply`, json-logic-engine `build` and a hand-written
// closure. Every implementation must agree on every sample before anything is timed.
//
//   npm run bench:core                 all shapes, two child processes per shape
//   npm run bench:core -- --quick      fewer samples (a smoke test, not figures to quote)
//   npm run bench:core -- --shape mix  some shapes only (comma-separated)
//   node --cpu-prof --import tsx bench/core.ts --in-process --shape mix    profile one shape
//   (add --predicate to profile compilePredicate instead of the policy, and --cases first.hand,
//   first.gate,… to time only some cases: cases interfere through the CPU cache and the GC)
//
// Each shape runs in its own processes so the JIT's type feedback from one shape's rules cannot
// slow (or flatter) another's; within a shape, all implementations are measured side by side.
// compilePredicate on the merged rule gets a process of its own for the same reason: its
// closures share type feedback with the policy's (in one process they slowed the policy's first
// decisions on the mix shape from 111 to 213 ns).

import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogicEngine } from 'json-logic-engine';
import { memoFor } from '../src/core/request-memo.js';
import { compilePolicy, compilePredicate, createRequestContext, createVisibilityFilter, type PrimitiveMetadata, type RequestContext } from '../src/index.js';
import {
  baselineOperators,
  createShape,
  isShapeId,
  mergeData,
  recurringContexts,
  registrySize,
  shapeIds,
  uniqueContextCount,
  type Shape,
  type ShapeId,
} from './core-shapes.js';
import { createCases, pairCount, type Implementation, type Implementations, type Samples, type Scenario, type ShapeCase } from './core-cases.js';
import { consumedSink, measure, type CaseResult, type MeasureOptions } from './measure.js';

interface JsonLogicJs {
  apply(rule: unknown, data?: unknown): unknown;
  add_operation(name: string, operation: (...args: never[]) => unknown): void;
  truthy(value: unknown): boolean;
}

// json-logic-js ships CommonJS without types.
const jsonLogic = createRequire(import.meta.url)('json-logic-js') as JsonLogicJs;

const benchFile = fileURLToPath(import.meta.url);
const resultsFile = path.join(path.dirname(benchFile), 'results', 'core.json');

const uniqueCheckedByBaselines = 64;
/** Unique callers checked decision by decision (all of them are checked list by list). */
const uniqueCheckedByDecision = 2048;

const cacheSize = 1000;

function count(value: number): string {
  return value.toLocaleString('en-US');
}

const scenarios: readonly Scenario[] = ['one', 'first', 'predicate', 'recurring', 'unique'];

const scenarioTitles: Readonly<Record<Scenario, string>> = {
  one: `one evaluation, ${recurringContexts} recurring request contexts (ns per decision)`,
  first: 'one evaluation, the first decision for its request (ns per decision)',
  predicate: 'one evaluation of the merged rule through compilePredicate, in a process of its own (ns per decision)',
  recurring: `filter ${count(registrySize)} primitives, ${recurringContexts} recurring callers (per list)`,
  unique: `filter ${count(registrySize)} primitives, all-unique callers (per list; each of ${count(uniqueContextCount)} callers at most once per case, ${count(cacheSize)}-entry cache)`,
};

interface ShapeResult {
  readonly id: ShapeId;
  readonly title: string;
  readonly checkedDecisions: number;
  readonly allowedShare: number;
  /** Derived from every timed result, so no timed work could be optimized away. */
  readonly checksum: number;
  readonly cases: ReadonlyArray<CaseResult & { scenario: Scenario; implementation: Implementation }>;
}

// ---------------------------------------------------------------------------------------------
// Implementations

let jsonLogicOperatorsAdded = false;

type Baselines = Pick<Implementations, 'jsonLogicApply' | 'engineBuilt' | 'hand'>;

function buildBaselines(shape: Shape): Baselines {
  if (!jsonLogicOperatorsAdded) {
    for (const [name, operation] of Object.entries(baselineOperators)) {
      jsonLogic.add_operation(name, operation as (...args: never[]) => unknown);
    }
    jsonLogicOperatorsAdded = true;
  }
  const rule = shape.mergedRule;
  const jsonLogicApply = (data: unknown) => jsonLogic.truthy(jsonLogic.apply(rule, data));

  const engine = new LogicEngine();
  for (const [name, operation] of Object.entries(baselineOperators)) {
    const call = operation as (...args: unknown[]) => unknown;
    engine.addMethod(name, (args: unknown[]) => call(...args), { deterministic: true });
  }
  const built = engine.build(rule) as (data: unknown) => unknown;
  const engineBuilt = (data: unknown) => Boolean(engine.truthy(built(data)));
  return { jsonLogicApply, engineBuilt, hand: shape.handWritten };
}

function buildImplementations(shape: Shape): Implementations {
  const policy = compilePolicy(shape.policy, { source: shape.id });
  const identity = (primitive: PrimitiveMetadata) => primitive;
  return {
    ...buildBaselines(shape),
    evaluate: policy.evaluate,
    forContext: policy.forContext,
    cachedFilter: createVisibilityFilter(policy, shape.primitives, identity, { cacheSize }),
    uniqueFilter: createVisibilityFilter(policy, shape.primitives, identity, { cacheSize }),
  };
}

// ---------------------------------------------------------------------------------------------
// Samples and the agreement check

function createSamples(shape: Shape): Samples {
  const pairContexts: RequestContext[] = [];
  const pairPrimitives: PrimitiveMetadata[] = [];
  // A stride coprime to the registry size walks primitives in a scattered but fixed order.
  for (let index = 0; index < pairCount; index++) {
    pairContexts.push(shape.contexts[index % shape.contexts.length]!);
    pairPrimitives.push(shape.primitives[(index * 379) % shape.primitives.length]!);
  }
  // Merged objects are built before timing: the baselines are measured as evaluators only.
  const pairData = pairContexts.map((context, index) => mergeData(context, pairPrimitives[index]!));
  // Copies of the recurring callers (as hot in the CPU cache as the originals, like a context
  // an adapter has just built), so forgetting their memos never touches the "one" scenario's.
  const firstContexts = new Map(shape.contexts.map((context) => [context, createRequestContext(context)]));
  const pairFirstContexts = pairContexts.map((context) => firstContexts.get(context)!);
  // Owner 0 is no policy: the memo as no decision has touched it.
  const pairFirstMemos = pairFirstContexts.map((context) => memoFor(context, 0)!);
  const listData = shape.contexts.map((context) => shape.primitives.map((primitive) => mergeData(context, primitive)));
  const uniqueFilterContexts = shape.uniqueContexts.map((context) => createRequestContext(context));
  return { pairContexts, pairFirstContexts, pairFirstMemos, pairPrimitives, pairData, listData, uniqueFilterContexts };
}

class DisagreementError extends Error {
  override name = 'DisagreementError';
}

function describeSample(context: RequestContext, primitive: PrimitiveMetadata): string {
  return JSON.stringify({ context, primitive });
}

/** Throws unless every implementation decides every sample as the hand-written closure does. */
function checkAgreement(shape: Shape, impls: Implementations, samples: Samples): { decisions: number; allowedShare: number } {
  let decisions = 0;
  function expectSame(name: string, actual: boolean, expected: boolean, context: RequestContext, primitive: PrimitiveMetadata): void {
    decisions++;
    if (actual !== expected) {
      throw new DisagreementError(`${shape.id}: ${name} decided ${actual}, hand-written ${expected} for ${describeSample(context, primitive)}`);
    }
  }
  function checkAll(context: RequestContext, primitive: PrimitiveMetadata, data: unknown, withBaselines: boolean): boolean {
    const expected = impls.hand(context, primitive);
    expectSame('mcp-gate policy.evaluate', impls.evaluate(context, primitive), expected, context, primitive);
    if (withBaselines) {
      expectSame('json-logic-js', impls.jsonLogicApply(data), expected, context, primitive);
      expectSame('json-logic-engine', impls.engineBuilt(data), expected, context, primitive);
    }
    return expected;
  }
  function checkList(name: string, visible: readonly PrimitiveMetadata[], context: RequestContext): void {
    const expected = shape.primitives.filter((primitive) => impls.hand(context, primitive));
    decisions += shape.primitives.length;
    if (visible.length !== expected.length || visible.some((primitive, index) => primitive !== expected[index])) {
      throw new DisagreementError(`${shape.id}: ${name} returned ${visible.length} primitives, hand-written ${expected.length} for ${JSON.stringify(context)}`);
    }
  }

  let allowed = 0;
  for (let index = 0; index < pairCount; index++) {
    if (checkAll(samples.pairContexts[index]!, samples.pairPrimitives[index]!, samples.pairData[index], true)) allowed++;
    const first = samples.pairFirstContexts[index]!;
    samples.pairFirstMemos[index]!.forget();
    expectSame(
      'mcp-gate policy.evaluate (first decision)',
      impls.evaluate(first, samples.pairPrimitives[index]!),
      impls.hand(first, samples.pairPrimitives[index]!),
      first,
      samples.pairPrimitives[index]!,
    );
  }
  shape.contexts.forEach((context, contextIndex) => {
    shape.primitives.forEach((primitive, index) => checkAll(context, primitive, samples.listData[contextIndex]![index], true));
    checkList('createVisibilityFilter (miss)', impls.cachedFilter.visible(context), context);
    const decide = impls.forContext(context);
    checkList(
      'policy.forContext',
      shape.primitives.filter((primitive) => decide(primitive)),
      context,
    );
  });
  for (const context of shape.contexts) checkList('createVisibilityFilter (hit)', impls.cachedFilter.visible(context), context);
  shape.uniqueContexts.forEach((context, contextIndex) => {
    const withBaselines = contextIndex < uniqueCheckedByBaselines;
    if (contextIndex < uniqueCheckedByDecision) {
      for (const primitive of shape.primitives) checkAll(context, primitive, mergeData(context, primitive), withBaselines);
    }
    checkList('createVisibilityFilter (unique)', impls.uniqueFilter.visible(samples.uniqueFilterContexts[contextIndex]!), context);
    const decide = impls.forContext(context);
    checkList(
      'policy.forContext (unique)',
      shape.primitives.filter((primitive) => decide(primitive)),
      context,
    );
  });

  // The unique scenario must really miss: distinct keys, more of them than the cache holds.
  const policy = compilePolicy(shape.policy);
  const keyOf = policy.contextKeyFor(shape.primitives);
  const uniqueKeys = new Set(shape.uniqueContexts.map(keyOf));
  if (uniqueKeys.size !== shape.uniqueContexts.length || uniqueKeys.size <= cacheSize) {
    throw new DisagreementError(`${shape.id}: only ${uniqueKeys.size} distinct cache keys among ${shape.uniqueContexts.length} unique callers`);
  }
  const allowedShare = allowed / pairCount;
  if (allowedShare < 0.05 || allowedShare > 0.95) {
    throw new DisagreementError(`${shape.id}: ${(allowedShare * 100).toFixed(1)}% of samples allowed; the shape would not exercise both outcomes`);
  }
  return { decisions, allowedShare };
}

// ---------------------------------------------------------------------------------------------
// compilePredicate on the merged rule, for information, in a process of its own: its closures
// come from the same creation sites as the policy's, so in one process V8 would share their type
// feedback, and each would slow the other down.

function createPredicateCases(shape: Shape, samples: Samples): { cases: ShapeCase[]; decisions: number } {
  const predicate = compilePredicate(shape.mergedRule, { operators: { has_capabilities: baselineOperators.has_capabilities } });
  const { jsonLogicApply, engineBuilt, hand } = buildBaselines(shape);
  const { pairContexts, pairPrimitives, pairData } = samples;
  let decisions = 0;
  const check = (context: RequestContext, primitive: PrimitiveMetadata) => {
    decisions++;
    const expected = hand(context, primitive);
    if (predicate(context, primitive) !== expected) {
      throw new DisagreementError(`${shape.id}: mcp-gate compilePredicate decided ${!expected}, hand-written ${expected} for ${describeSample(context, primitive)}`);
    }
  };
  for (let index = 0; index < pairCount; index++) check(pairContexts[index]!, pairPrimitives[index]!);
  for (const context of shape.contexts) for (const primitive of shape.primitives) check(context, primitive);
  const one = (implementation: Implementation, label: string, run: () => number): ShapeCase => ({
    id: `predicate.${implementation}`,
    scenario: 'predicate',
    implementation,
    label,
    opsPerRun: pairCount,
    run,
  });
  const cases = [
    one('hand', 'hand-written closure', () => {
      let allowed = 0;
      for (let index = 0; index < pairCount; index++) if (hand(pairContexts[index]!, pairPrimitives[index]!)) allowed++;
      return allowed;
    }),
    one('gate-predicate', 'mcp-gate compilePredicate (merged rule)', () => {
      let allowed = 0;
      for (let index = 0; index < pairCount; index++) if (predicate(pairContexts[index]!, pairPrimitives[index]!)) allowed++;
      return allowed;
    }),
    one('json-logic-js', 'json-logic-js apply', () => {
      let allowed = 0;
      for (let index = 0; index < pairCount; index++) if (jsonLogicApply(pairData[index])) allowed++;
      return allowed;
    }),
    one('json-logic-engine', 'json-logic-engine build', () => {
      let allowed = 0;
      for (let index = 0; index < pairCount; index++) if (engineBuilt(pairData[index])) allowed++;
      return allowed;
    }),
  ];
  return { cases, decisions };
}

function runShape(id: ShapeId, part: Part, options: MeasureOptions, only?: readonly string[]): ShapeResult {
  if (part === 'predicate') return runPredicate(id, options);
  const shape = createShape(id);
  const impls = buildImplementations(shape);
  const samples = createSamples(shape);
  const { decisions, allowedShare } = checkAgreement(shape, impls, samples);
  const cases = createCases(shape, impls, samples).filter((entry) => only === undefined || only.includes(entry.id));
  return shapeResult(shape, decisions, allowedShare, cases, measure(cases, options));
}

function runPredicate(id: ShapeId, options: MeasureOptions): ShapeResult {
  const shape = createShape(id);
  const { cases, decisions } = createPredicateCases(shape, createSamples(shape));
  return shapeResult(shape, decisions, Number.NaN, cases, measure(cases, options));
}

function shapeResult(shape: Shape, decisions: number, allowedShare: number, cases: readonly ShapeCase[], results: readonly CaseResult[]): ShapeResult {
  return {
    id: shape.id,
    title: shape.title,
    checkedDecisions: decisions,
    allowedShare,
    checksum: consumedSink(),
    cases: results.map((result, index) => ({ ...result, scenario: cases[index]!.scenario, implementation: cases[index]!.implementation })),
  };
}

// ---------------------------------------------------------------------------------------------
// Ratios, targets and the report

interface Ratios {
  /** mcp-gate ÷ hand-written (target ≤ 1.5). */
  readonly vsHand: number;
  /** json-logic-js ÷ mcp-gate: how many times faster (target ≥ 30). */
  readonly fasterThanJsonLogicJs: number | undefined;
  /** json-logic-engine ÷ mcp-gate (target > 1). */
  readonly fasterThanEngine: number | undefined;
}

interface TargetCheck {
  readonly shape: ShapeId;
  readonly scenario: Scenario;
  readonly target: string;
  readonly value: number;
  readonly met: boolean;
}

function findCase(shape: ShapeResult, scenario: Scenario, implementation: Implementation): CaseResult | undefined {
  return shape.cases.find((result) => result.scenario === scenario && result.implementation === implementation);
}

function ratiosFor(shape: ShapeResult, scenario: Scenario, implementation: Implementation): Ratios | undefined {
  const subject = findCase(shape, scenario, implementation);
  const hand = findCase(shape, scenario, 'hand');
  if (!subject || !hand) return undefined;
  const jsonLogicJs = findCase(shape, scenario, 'json-logic-js');
  const engine = findCase(shape, scenario, 'json-logic-engine');
  return {
    vsHand: subject.p50 / hand.p50,
    fasterThanJsonLogicJs: jsonLogicJs && jsonLogicJs.p50 / subject.p50,
    fasterThanEngine: engine && engine.p50 / subject.p50,
  };
}

function checkTargets(shape: ShapeResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const scenario of ['one', 'first', 'recurring'] as const) {
    const ratios = ratiosFor(shape, scenario, 'gate');
    if (!ratios) continue;
    checks.push({ shape: shape.id, scenario, target: '≤ 1.5× hand-written', value: ratios.vsHand, met: ratios.vsHand <= 1.5 });
    if (ratios.fasterThanJsonLogicJs !== undefined) {
      const value = ratios.fasterThanJsonLogicJs;
      checks.push({ shape: shape.id, scenario, target: '≥ 30× faster than json-logic-js', value, met: value >= 30 });
    }
    if (ratios.fasterThanEngine !== undefined) {
      const value = ratios.fasterThanEngine;
      checks.push({ shape: shape.id, scenario, target: 'faster than json-logic-engine build', value, met: value > 1 });
    }
  }
  const missLoop = findCase(shape, 'unique', 'gate');
  const miss = findCase(shape, 'unique', 'gate-cached');
  if (missLoop && miss) {
    // A few percent of slack for measurement noise.
    const value = miss.p50 / missLoop.p50;
    checks.push({ shape: shape.id, scenario: 'unique', target: 'cache misses ≤ 1.05× the plain loop', value, met: value <= 1.05 });
  }
  return checks;
}

function formatNs(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} ms`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)} µs`;
  if (value >= 100) return `${value.toFixed(0)} ns`;
  return `${value.toFixed(1)} ns`;
}

function formatRatio(value: number | undefined): string {
  if (value === undefined) return '';
  return value >= 100 ? `${value.toFixed(0)}×` : value >= 10 ? `${value.toFixed(1)}×` : `${value.toFixed(2)}×`;
}

function printShape(shape: ShapeResult): void {
  const header = ['', 'p50', 'IQR', '÷ hand', 'jl-js ÷', 'engine ÷'];
  const widths = [48, 10, 7, 8, 9, 9];
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!))).join(' ');
  console.log(`\n${shape.title}  (${shape.checkedDecisions.toLocaleString('en-US')} decisions agreed; ${(shape.allowedShare * 100).toFixed(0)}% of single samples allowed)`);
  for (const scenario of scenarios) {
    console.log(`  ${scenarioTitles[scenario]}`);
    console.log(line(header.map((cell, index) => (index === 0 ? '' : cell))));
    for (const result of shape.cases.filter((entry) => entry.scenario === scenario)) {
      const ratios = ratiosFor(shape, scenario, result.implementation);
      const spread = `±${(((result.p75 - result.p25) / 2 / result.p50) * 100).toFixed(0)}%`;
      console.log(
        line([
          `    ${result.label}`,
          formatNs(result.p50),
          spread,
          formatRatio(ratios?.vsHand),
          formatRatio(ratios?.fasterThanJsonLogicJs),
          formatRatio(ratios?.fasterThanEngine),
        ]),
      );
    }
  }
}

function printTargets(checks: readonly TargetCheck[]): void {
  console.log('\nTargets (issue 2), mcp-gate policy.evaluate (one evaluation: "one", "first") and policy.forContext (lists):');
  for (const check of checks) {
    const mark = check.met ? 'met   ' : 'MISSED';
    console.log(`  ${mark} ${check.shape.padEnd(12)} ${check.scenario.padEnd(9)} ${check.target.padEnd(36)} ${formatRatio(check.value)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Entry

interface Arguments {
  readonly shapes: ShapeId[];
  readonly options: MeasureOptions;
  readonly quick: boolean;
  readonly child: boolean;
  readonly part: Part;
  readonly inProcess: boolean;
  /** `--cases`: only these case ids (with --in-process, to profile or to see what a case does to another). */
  readonly only: readonly string[] | undefined;
}

/** A shape is measured in two processes: the policy against the baselines, and compilePredicate. */
type Part = 'policy' | 'predicate';

function parseArguments(argv: readonly string[]): Arguments {
  let shapes: ShapeId[] = [...shapeIds];
  let quick = false;
  let child = false;
  let part: Part = 'policy';
  let inProcess = false;
  let only: string[] | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--quick') quick = true;
    else if (argument === '--child') child = true;
    else if (argument === '--predicate') part = 'predicate';
    else if (argument === '--in-process') inProcess = true;
    else if (argument === '--cases') only = (argv[++index] ?? '').split(',');
    else if (argument === '--shape') {
      const requested = (argv[++index] ?? '').split(',');
      const unknown = requested.filter((id) => !isShapeId(id));
      if (unknown.length > 0) throw new TypeError(`unknown shape ${unknown.join(', ')}; shapes are ${shapeIds.join(', ')}`);
      shapes = requested as ShapeId[];
    } else {
      throw new TypeError(`unknown argument ${argument}; use --quick, --shape <${shapeIds.join('|')}>[,…], --in-process [--predicate] [--cases <id>,…]`);
    }
  }
  // Short batches: on a shared machine most 1 ms batches run without being descheduled, so the
  // median is the undisturbed cost; long batches would almost all include someone else's time slice.
  const options: MeasureOptions = quick
    ? { warmupMs: 300, batchMs: 1, samples: 25, minSamples: 5, caseBudgetMs: 80 }
    : { warmupMs: 1000, batchMs: 1, samples: 151, minSamples: 15, caseBudgetMs: 500 };
  if (only !== undefined && !inProcess) throw new TypeError('--cases needs --in-process (a full run measures every case)');
  return { shapes, options, quick, child, part, inProcess, only };
}

function runInChild(id: ShapeId, part: Part, quick: boolean): Promise<ShapeResult> {
  return new Promise((resolve, reject) => {
    const args = ['--child', '--shape', id, ...(part === 'predicate' ? ['--predicate'] : []), ...(quick ? ['--quick'] : [])];
    const child = fork(benchFile, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: ShapeResult | undefined;
    child.on('message', (message) => {
      result = message as ShapeResult;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 && result) resolve(result);
      else reject(new Error(`shape ${id} (${part}) failed (exit code ${code})`));
    });
  });
}

function mergeParts(policy: ShapeResult, predicate: ShapeResult): ShapeResult {
  return {
    ...policy,
    checkedDecisions: policy.checkedDecisions + predicate.checkedDecisions,
    checksum: policy.checksum + predicate.checksum,
    cases: [...policy.cases, ...predicate.cases],
  };
}

function environment(): Record<string, unknown> {
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${process.arch}`,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  if (args.child) {
    const result = runShape(args.shapes[0]!, args.part, args.options);
    process.send?.(result);
    return;
  }
  const started = Date.now();
  console.log(`mcp-gate core benchmarks — ${process.version}, ${String(environment()['cpu'])}${args.quick ? ' (quick: not figures to quote)' : ''}`);
  const shapes: ShapeResult[] = [];
  for (const id of args.shapes) {
    const result = args.inProcess
      ? runShape(id, args.part, args.options, args.only)
      : mergeParts(await runInChild(id, 'policy', args.quick), await runInChild(id, 'predicate', args.quick));
    printShape(result);
    shapes.push(result);
  }
  const targets = shapes.flatMap(checkTargets);
  printTargets(targets);
  const seconds = (Date.now() - started) / 1000;
  console.log(`\n${seconds.toFixed(1)} s; ratios are p50 over p50 from the same process`);

  if (args.inProcess) return; // profiling runs do not overwrite the recorded figures
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  const report = {
    benchmark: 'core',
    generatedAt: new Date().toISOString(),
    command: `npm run bench:core${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    environment: environment(),
    options: args.options,
    unit: 'ns per operation (p50); one operation is one decision ("one", "first", "predicate") or one filtered list of 1,000 ("recurring", "unique")',
    shapes: shapes.map((shape) => ({
      ...shape,
      ratios: Object.fromEntries(
        scenarios.map((scenario) => [
          scenario,
          Object.fromEntries(
            shape.cases.filter((entry) => entry.scenario === scenario).map((entry) => [entry.implementation, ratiosFor(shape, scenario, entry.implementation)]),
          ),
        ]),
      ),
    })),
    targets,
    seconds,
  };
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), resultsFile)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
});

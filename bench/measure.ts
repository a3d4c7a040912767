// A small timing harness for comparing implementations side by side in one process.
//
// Every case runs a whole batch in its own loop (no per-operation callback from the harness, so
// call overhead does not pad the fast cases and flatter ratios). Cases are interleaved round by
// round, starting from a different case each round, so load from other processes and GC pauses
// fall on all of them alike and ratios stay meaningful on a noisy machine.

export interface BenchCase {
  /** Stable identifier used in the JSON results, e.g. `one.gate-policy`. */
  readonly id: string;
  readonly label: string;
  /** Operations performed by one call of `run` (ns/op divides by this). */
  readonly opsPerRun: number;
  /** Performs `opsPerRun` operations; returns something derived from the results so nothing is optimized away. */
  readonly run: () => number;
}

export interface MeasureOptions {
  /** Interleaved warm-up time across all cases, before calibrating again. */
  readonly warmupMs: number;
  /** Target duration of one timed batch (a batch repeats `run` enough times to last about this long). */
  readonly batchMs: number;
  /** Timed batches per case. */
  readonly samples: number;
}

export interface CaseResult {
  readonly id: string;
  readonly label: string;
  readonly opsPerRun: number;
  readonly samples: number;
  /** Median of the per-batch ns/op. */
  readonly p50: number;
  readonly p25: number;
  readonly p75: number;
  readonly min: number;
}

// Results flow here so V8 cannot drop the work; printed by the entry point.
let sink = 0;

export function consumedSink(): number {
  return sink;
}

function now(): number {
  return Number(process.hrtime.bigint());
}

/** Runs `run` `reps` times and returns the elapsed nanoseconds. */
function timeBatch(benchCase: BenchCase, reps: number): number {
  const run = benchCase.run;
  let total = 0;
  const start = now();
  for (let rep = 0; rep < reps; rep++) total += run();
  const elapsed = now() - start;
  sink = (sink + total) | 0;
  return elapsed;
}

/** Repetitions per batch so that one batch lasts about `batchMs`. */
function calibrate(benchCase: BenchCase, batchMs: number): number {
  let reps = 1;
  for (;;) {
    const elapsed = timeBatch(benchCase, reps);
    if (elapsed >= batchMs * 1e6 / 4 || reps >= 1 << 24) {
      return Math.max(1, Math.round((reps * batchMs * 1e6) / Math.max(elapsed, 1)));
    }
    reps *= 2;
  }
}

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

/** Warms up, calibrates and samples every case interleaved; returns p50 ns/op per case. */
export function measure(cases: readonly BenchCase[], options: MeasureOptions): CaseResult[] {
  const warmupEnd = now() + options.warmupMs * 1e6;
  let reps = cases.map((benchCase) => calibrate(benchCase, options.batchMs / 4));
  while (now() < warmupEnd) {
    for (let index = 0; index < cases.length; index++) timeBatch(cases[index]!, reps[index]!);
  }
  reps = cases.map((benchCase) => calibrate(benchCase, options.batchMs));

  const perOp: number[][] = cases.map(() => []);
  for (let round = 0; round < options.samples; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const index = (round + offset) % cases.length;
      const benchCase = cases[index]!;
      const elapsed = timeBatch(benchCase, reps[index]!);
      perOp[index]!.push(elapsed / (reps[index]! * benchCase.opsPerRun));
    }
  }

  return cases.map((benchCase, index) => {
    const sorted = [...perOp[index]!].sort((a, b) => a - b);
    return {
      id: benchCase.id,
      label: benchCase.label,
      opsPerRun: benchCase.opsPerRun,
      samples: sorted.length,
      p50: quantile(sorted, 0.5),
      p25: quantile(sorted, 0.25),
      p75: quantile(sorted, 0.75),
      min: sorted[0]!,
    };
  });
}

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
  /** Shortest timed batch (a batch repeats `run` enough times to last about this long, at least once). */
  readonly batchMs: number;
  /** Timed batches per case, at most. */
  readonly samples: number;
  /** Timed batches per case, at least, even when that exceeds `caseBudgetMs`. */
  readonly minSamples: number;
  /** Time one case may take to sample; slow baselines get fewer (but at least `minSamples`) batches. */
  readonly caseBudgetMs: number;
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

/** Repetitions per batch so that one batch lasts about `batchMs` (at least one run). */
function calibrate(benchCase: BenchCase, batchMs: number): { reps: number; batchNs: number } {
  let reps = 1;
  for (;;) {
    const elapsed = timeBatch(benchCase, reps);
    if (elapsed >= (batchMs * 1e6) / 4 || reps >= 1 << 24) {
      const perRun = Math.max(elapsed, 1) / reps;
      const calibrated = Math.max(1, Math.round((batchMs * 1e6) / perRun));
      return { reps: calibrated, batchNs: calibrated * perRun };
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
  const warmupReps = cases.map((benchCase) => calibrate(benchCase, options.batchMs).reps);
  while (now() < warmupEnd) {
    for (let index = 0; index < cases.length; index++) timeBatch(cases[index]!, warmupReps[index]!);
  }
  const plans = cases.map((benchCase) => {
    const { reps, batchNs } = calibrate(benchCase, options.batchMs);
    const affordable = Math.floor((options.caseBudgetMs * 1e6) / batchNs);
    return { reps, samples: Math.max(options.minSamples, Math.min(options.samples, affordable)) };
  });

  const perOp: number[][] = cases.map(() => []);
  const rounds = Math.max(...plans.map((plan) => plan.samples));
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < cases.length; offset++) {
      const index = (round + offset) % cases.length;
      const plan = plans[index]!;
      if (perOp[index]!.length >= plan.samples) continue;
      const benchCase = cases[index]!;
      const elapsed = timeBatch(benchCase, plan.reps);
      perOp[index]!.push(elapsed / (plan.reps * benchCase.opsPerRun));
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

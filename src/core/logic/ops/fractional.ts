import { murmurHash3, scaleHash } from '../murmur3.js';
import type { CompiledArg, CompileContext, Evaluator, OperatorDefinition } from '../types.js';

// flagd's `fractional`, v2 bucketing: MurmurHash3 x86_32 (seed 0) of the key's UTF-8 bytes, scaled
// into [0, totalWeight) by `(hash * totalWeight) >> 32`; the first bucket whose cumulative weight
// exceeds that value wins, and its variant is returned as it is (a string, number, boolean or null,
// possibly computed by logic). Written as flagd's Go evaluator and flagd-testbed define it:
// - a first argument that is not an array literal is the bucketing key and must yield a string;
//   otherwise every argument is a bucket and the key is the scope's default (flagd: flag key +
//   targeting key);
// - a bucket is `[variant]` (weight 1) or `[variant, weight]`; a null weight counts as 1, weights
//   are integers, negative ones count as 0, and weights and their sum stay within int32;
// - anything else at run time, or a zero total weight, yields null so the default variant applies.

const maxWeight = 0x7fffffff;

/** A bucket's weight as flagd reads it, or why the bucket is invalid. */
function readBucket(bucket: unknown): number | string {
  if (!Array.isArray(bucket) || bucket.length === 0) return 'a fractional bucket must be a non-empty array [variant, weight]';
  const variant: unknown = bucket[0];
  if (variant !== null && typeof variant === 'object') return 'a fractional variant must be a string, number, boolean or null';
  const weight: unknown = bucket.length > 1 ? bucket[1] : 1;
  if (weight === null || weight === undefined) return 1;
  if (typeof weight !== 'number') return 'a fractional weight must be a number';
  if (!Number.isInteger(weight)) return 'a fractional weight must be an integer';
  if (weight > maxWeight) return `a fractional weight must be at most ${maxWeight}`;
  return weight < 0 ? 0 : weight;
}

/** Picks the variant for `hash` from evaluated buckets; null when any bucket is invalid. */
function pickVariant(buckets: readonly unknown[], hash: number): unknown {
  let total = 0;
  for (const bucket of buckets) {
    const weight = readBucket(bucket);
    if (typeof weight === 'string') return null;
    total += weight;
  }
  if (total === 0 || total > maxWeight) return null;
  const target = scaleHash(hash, total);
  let end = 0;
  for (const bucket of buckets) {
    end += readBucket(bucket) as number;
    if (target < end) return (bucket as unknown[])[0] ?? null;
  }
  return null;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** Reports literal problems; returns false when there were any. */
function reportLiterals(keyArg: CompiledArg | undefined, bucketArgs: readonly CompiledArg[], ctx: CompileContext, path: string): boolean {
  let valid = true;
  const report = (at: string, message: string) => {
    valid = false;
    ctx.report({ code: 'invalid_argument', path: at, message });
  };
  if (keyArg?.isConstant && typeof keyArg.constant !== 'string') {
    report(keyArg.path, `fractional bucketing key must be a string, got ${describeValue(keyArg.constant)}`);
  }
  if (bucketArgs.length === 0) report(path, 'fractional needs at least one bucket [variant, weight] after the bucketing key');
  let total = 0;
  for (const arg of bucketArgs) {
    if (!arg.isConstant) continue;
    const weight = readBucket(arg.constant);
    if (typeof weight === 'string') report(arg.path, weight);
    else total += weight;
  }
  if (total > maxWeight) report(path, `fractional weights must sum to at most ${maxWeight}`);
  return valid;
}

const fractional: OperatorDefinition = {
  name: 'fractional',
  arity: { min: 1, max: Infinity },
  // Not pure: without a bucketing key it reads the targeting key from the data, so a call whose
  // arguments are all literals must not be folded at compile time.
  pure: false,
  compile(args, ctx, path): Evaluator {
    const hasKey = !Array.isArray(args[0]!.raw);
    const keyArg = hasKey ? args[0] : undefined;
    const bucketArgs = hasKey ? args.slice(1) : args;
    if (!reportLiterals(keyArg, bucketArgs, ctx, path)) return () => null;
    const evaluateKey = keyArg ? keyArg.evaluate : ctx.scope.defaultBucketKey;

    if (bucketArgs.every((arg) => arg.isConstant)) {
      // The usual shape: literal buckets, so variants and cumulative weights are fixed here and
      // an evaluation only hashes the key and scans.
      const variants = bucketArgs.map((arg) => ((arg.constant as unknown[])[0] ?? null) as unknown);
      const ends: number[] = [];
      let total = 0;
      for (const arg of bucketArgs) ends.push((total += readBucket(arg.constant) as number));
      return function pickConstantBucket(data, primitive) {
        const key = evaluateKey(data, primitive);
        if (typeof key !== 'string' || total === 0) return null;
        const target = scaleHash(murmurHash3(key), total);
        for (let index = 0; index < ends.length; index++) {
          if (target < ends[index]!) return variants[index];
        }
        return null;
      };
    }

    // Buckets with logic inside (a computed variant or weight): evaluated per call into a scratch
    // array owned by this closure (a rule never re-enters its own node), cleared after use.
    const evaluators = bucketArgs.map((arg) => arg.evaluate);
    const evaluated: unknown[] = new Array<unknown>(evaluators.length).fill(null);
    return function pickComputedBucket(data, primitive) {
      const key = evaluateKey(data, primitive);
      if (typeof key !== 'string') return null;
      try {
        for (let index = 0; index < evaluators.length; index++) evaluated[index] = evaluators[index]!(data, primitive);
        return pickVariant(evaluated, murmurHash3(key));
      } finally {
        evaluated.fill(null);
      }
    };
  },
};

export const fractionalOperators: readonly OperatorDefinition[] = [fractional];

import type { Parameters } from 'fast-check';

/**
 * Property tests run with a fixed seed so CI is repeatable; FC_SEED overrides it to explore, and
 * fast-check prints the seed and the shrunk counterexample on failure.
 */
export function propertyParameters<T>(numRuns: number): Parameters<T> {
  const seed = process.env.FC_SEED === undefined ? 20261130 : Number(process.env.FC_SEED);
  return { seed, numRuns, endOnFailure: false };
}

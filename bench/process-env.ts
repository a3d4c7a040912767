// What the load benches share about their process: a full GC on demand, and positive integers
// read from the environment.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** A full garbage collection, so heap figures compare. */
export const collectGarbage = runInNewContext('gc') as () => void;

/** A positive integer from the environment, or `fallback`; anything else stops the bench. */
export function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

import { PolicyError } from '../core/errors.js';

/** A gate broke one of the invariants `checkGateInvariants` checks; the message says which, for whom, and how to replay it. */
export class GateInvariantError extends PolicyError {
  override name = 'GateInvariantError';
  readonly seed: number;
  /** fast-check's replay path: pass `{ seed, path }` to run exactly the shrunk counterexample. */
  readonly path: string | undefined;
  /** The callers of the shrunk counterexample. */
  readonly counterexample: unknown;
  readonly violations: readonly string[];

  constructor(details: { seed: number; path: string | undefined; counterexample: unknown; violations: readonly string[]; runs: number; shrinks: number }) {
    super(formatFailure(details));
    this.seed = details.seed;
    this.path = details.path;
    this.counterexample = details.counterexample;
    this.violations = Object.freeze([...details.violations]);
  }
}

const maxShownViolations = 20;
const maxLineLength = 400;

function formatFailure(details: { seed: number; path: string | undefined; counterexample: unknown; violations: readonly string[]; runs: number; shrinks: number }): string {
  const clip = (line: string) => (line.length > maxLineLength ? `${line.slice(0, maxLineLength - 1)}…` : line);
  const shown = details.violations.slice(0, maxShownViolations).map((line) => `  ${clip(line)}`);
  const more = details.violations.length - shown.length;
  const replay = details.path === undefined ? `{ seed: ${details.seed} }` : `{ seed: ${details.seed}, path: ${JSON.stringify(details.path)} }`;
  return [
    `gate invariants failed after ${details.runs} run(s) (seed ${details.seed}, shrunk ${details.shrinks} time(s))`,
    `counterexample (callers): ${clip(JSON.stringify(details.counterexample))}`,
    'violations:',
    ...shown,
    ...(more > 0 ? [`  … and ${more} more`] : []),
    `replay: checkGateInvariants(createServer, policy, ${replay})`,
  ].join('\n');
}

import { PolicyEvaluationError } from '../errors.js';

// Evaluation is synchronous, so one counter per evaluation suffices; `withBudget` saves and
// restores it so a rule evaluated from inside another (custom operators) cannot reset its caller.
let remainingSteps = 0;

/** Runs `evaluate` with a fresh budget of `steps` iterations. */
export function withBudget<T>(steps: number, evaluate: () => T): T {
  const saved = remainingSteps;
  remainingSteps = steps;
  try {
    return evaluate();
  } finally {
    remainingSteps = saved;
  }
}

/** Spends `units` of the current evaluation's budget; past it, the evaluation fails with a PolicyEvaluationError. */
export function spendSteps(units: number): void {
  remainingSteps -= units;
  if (remainingSteps < 0) throw new PolicyEvaluationError('evaluation exceeded its iteration budget');
}

/** Starts the budget for one top-level evaluation; returns the previous value for `restoreBudget`. */
export function startBudget(steps: number): number {
  const saved = remainingSteps;
  remainingSteps = steps;
  return saved;
}

export function restoreBudget(saved: number): void {
  remainingSteps = saved;
}

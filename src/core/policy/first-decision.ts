import type { CompiledPolicyRule, Evaluator, FlatTest } from '../internal-types.js';
import { negation, runTest, valueTest } from '../logic/flat-tests.js';
import { isTruthy } from '../logic/truthy.js';

// Most requests decide once: a call, a get, a read. Rule by rule, that one decision pays a call
// into every rule's condition, the rule loop and the memo bookkeeping; here the rules that apply
// to a primitive become one list of tests run in one loop. The list holds the same tests in the
// same order as rule by rule, so it stops where rule by rule stops, with the same answer and the
// same error if a test fails:
//   - deny rule `or(t1, t2)`: it holds when some ti holds, so the list needs !t1 then !t2;
//   - any other deny rule: the list needs `!` of its condition;
//   - the allow rule of a default-deny policy, `and(t1, t2)`: t1 then t2;
//   - other allow rules: at least one must hold (an `or`'s tests join that list).
// A request's later decisions, and lists, use the rule-by-rule path and its memo instead.
//
// So the rules' semantics are written twice: here as a list of tests, and rule by rule in
// compile-policy.ts's decidingRule (which later decisions, lists and explain share). This one
// exists for issue 2's target for a request's first decision (at most 1.5× a hand-written
// closure); the side-by-side runs of this session (load above 14 on 2 cores) could not resolve
// its gain, so it was kept rather than removed unmeasured. test/core/policy/first-decision.test.ts
// pins the two together: a property test over random policies that checks the same conditions
// are evaluated in the same order, with the same answer and the same rule blamed.

/** The rules that apply to a primitive, as tests. */
export interface FirstDecision {
  /** Each must hold, or the decision is false. */
  readonly all: readonly FlatTest[];
  /** When defined, the first of these that holds allows; if none does, `otherwise`. */
  readonly any: readonly FlatTest[] | undefined;
  /** The decision when `all` holds and `any` is undefined or none of it holds. */
  readonly otherwise: boolean;
  /** The rule of each test, `all`'s then `any`'s: the one to blame when a test throws. */
  readonly ruleIds: readonly string[];
}

/** What a test threw, with the rule it belongs to (the caller reports it and fails closed). */
export class FailedRule {
  constructor(
    readonly ruleId: string,
    readonly error: unknown,
  ) {}
}

const alwaysHolds = valueTest(() => true, false);
const neverHolds = valueTest(() => true, true);

/** A rule's condition as one test (the value test of its evaluator when it is neither test nor group). */
function conditionTest(rule: CompiledPolicyRule, when: Evaluator): FlatTest {
  if (rule.test !== undefined) return rule.test;
  if (rule.whenNeverArray) return valueTest(when, false);
  return valueTest((context, primitive) => isTruthy(when(context, primitive)), false);
}

/** The tests that decide whether a deny rule does not hold (all must), or an allow rule holds (any may). */
function testsOf(rule: CompiledPolicyRule): FlatTest[] {
  const { when, group } = rule;
  if (rule.effect === 'deny') {
    if (when === null) return [neverHolds];
    if (group?.stopOn === true) return group.tests.map(negation);
    return [negation(group === undefined ? conditionTest(rule, when) : valueTest(when, false))];
  }
  if (when === null) return [alwaysHolds];
  if (group?.stopOn === true) return [...group.tests];
  return [group === undefined ? conditionTest(rule, when) : valueTest(when, false)];
}

export function firstDecision(deny: readonly CompiledPolicyRule[], allow: readonly CompiledPolicyRule[], allowByDefault: boolean): FirstDecision {
  const all: FlatTest[] = [];
  const ruleIds: string[] = [];
  const add = (list: FlatTest[], rule: CompiledPolicyRule, tests: readonly FlatTest[]) => {
    list.push(...tests);
    ruleIds.push(...tests.map(() => rule.id));
  };
  for (const rule of deny) add(all, rule, testsOf(rule));
  if (allow.length === 0) return { all, any: undefined, otherwise: allowByDefault, ruleIds };
  const only = allow.length === 1 ? allow[0]! : undefined;
  if (!allowByDefault && only !== undefined && only.group?.stopOn !== true) {
    // Failing the allow rule's tests is failing the default: they join `all` (`and`'s one by one).
    const when = only.when;
    add(all, only, when === null ? [] : only.group !== undefined ? only.group.tests : [conditionTest(only, when)]);
    return { all, any: undefined, otherwise: true, ruleIds };
  }
  const any: FlatTest[] = [];
  for (const rule of allow) add(any, rule, testsOf(rule));
  return { all, any, otherwise: allowByDefault, ruleIds };
}

/** The decision; what a test throws comes out as a FailedRule. */
export function decideFirst(decision: FirstDecision, context: unknown, primitive: unknown): boolean {
  const all = decision.all;
  let index = 0;
  try {
    for (; index < all.length; index++) if (!runTest(all[index]!, context, primitive)) return false;
    const any = decision.any;
    if (any === undefined) return decision.otherwise;
    for (; index - all.length < any.length; index++) if (runTest(any[index - all.length]!, context, primitive)) return true;
    return decision.otherwise;
  } catch (error) {
    throw new FailedRule(decision.ruleIds[index]!, error);
  }
}

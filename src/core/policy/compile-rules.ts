import { joinPath, type PolicyIssue } from '../errors.js';
import type { CompiledPolicyRule, Evaluator, FlatTest, TestGroup } from '../internal-types.js';
import { compileRuleCollectingIssues, type CompiledRule, type CompileLogicOptions } from '../logic/compile.js';
import { isTruthy } from '../logic/truthy.js';
import type { OperatorDefinition } from '../logic/types.js';
import { createContextScope, readsEverything } from './context-scope.js';
import type { FlagDefaults } from './flag-reads.js';
import { compileAppliesTo } from './rule-plan.js';
import type { PolicyRule } from './schema.js';

/** What compiling rules needs of compilePolicy's options: the logic options and the operators resolved once. */
type RuleOptions = CompileLogicOptions & { operatorTable: ReadonlyMap<string, OperatorDefinition>; flagDefaults?: FlagDefaults };

/** Compiles the rules of a document: ids checked, `appliesTo` and `when` compiled, issues collected. */
export function compileRules(
  documentRules: ReadonlyArray<Partial<PolicyRule> & Pick<PolicyRule, 'id'> & { index?: number }>,
  options: RuleOptions,
  reads: Set<string>,
  issues: PolicyIssue[],
  usage: { iterates: boolean; memoSlots: number } = { iterates: false, memoSlots: 0 },
): CompiledPolicyRule[] {
  const compileCondition = createConditionCompiler(options, reads, issues);
  const seen = new Map<string, number>();
  return documentRules.map((rule, position) => {
    const index = rule.index ?? position;
    const path = joinPath('rules', index);
    const earlier = seen.get(rule.id);
    if (earlier !== undefined) {
      issues.push({ code: 'duplicate_rule_id', path: `${path}.id`, message: `rule id "${rule.id}" is already used by rules[${earlier}]` });
    } else {
      seen.set(rule.id, index);
    }
    let when: Evaluator | null = null;
    let test: FlatTest | undefined;
    let group: TestGroup | undefined;
    let whenNeverArray = true;
    let contextOnly = false;
    if (rule.when !== undefined) {
      const condition = compileCondition(rule.when, `${path}.when`);
      const { root } = condition;
      when = root.isConstant ? (isTruthy(root.constant) ? null : () => false) : root.evaluate;
      whenNeverArray = root.neverArray;
      if (!root.isConstant) ({ test, group } = root);
      contextOnly = condition.contextOnly && when !== null;
      if (condition.iterates) usage.iterates = true;
    }
    const effect = rule.effect ?? 'deny';
    const appliesTo = compileAppliesTo(rule.appliesTo);
    const memoSlot = contextOnly ? usage.memoSlots++ : -1;
    return { id: rule.id, description: rule.description, effect, appliesTo, when, test, group, whenNeverArray, memoSlot };
  });
}

interface CompiledCondition extends CompiledRule {
  /** True when the value depends on the request alone (no primitive reads, no custom operators): one value per request. */
  readonly contextOnly: boolean;
}

function createConditionCompiler(options: RuleOptions, reads: Set<string>, issues: PolicyIssue[]) {
  // Custom operators may read clocks or counters: with any of them, nothing is memoized.
  const pureOperators = options.operators === undefined || Object.keys(options.operators).length === 0;
  // A document built in code may share one condition object between many rules: compile it once
  // (its issues, if any, are reported again at every use).
  const compiled = new Map<unknown, { condition: CompiledCondition; path: string; issues: PolicyIssue[] }>();
  return function compileCondition(condition: unknown, path: string): CompiledCondition {
    const known = compiled.get(condition);
    if (known) {
      for (const issue of known.issues) issues.push({ ...issue, path: path + issue.path.slice(known.path.length) });
      return known.condition;
    }
    const conditionReads = new Set<string>();
    const conditionIssues: PolicyIssue[] = [];
    const rule = compileRuleCollectingIssues(condition, { ...options, scope: createContextScope(conditionReads, options.flagDefaults), path }, conditionIssues);
    for (const read of conditionReads) reads.add(read);
    issues.push(...conditionIssues);
    const readsPrimitive = [...conditionReads].some((read) => read === readsEverything || read === 'primitive' || read.startsWith('primitive.'));
    const result = { ...rule, contextOnly: pureOperators && !readsPrimitive };
    if (condition !== null && typeof condition === 'object') compiled.set(condition, { condition: result, path, issues: conditionIssues });
    return result;
  };
}

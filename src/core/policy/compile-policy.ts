import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { CompiledPolicyRule } from '../internal-types.js';
import { MetadataError, PolicyCompileError, PolicyError, type PolicyIssue } from '../errors.js';
import { describeFlagFallbacks, flagFallbacksOf } from '../flag-values.js';
import { declaredFlagDefaults, flagKeysOf, unusedFlags, type FlagDefaults } from './flag-reads.js';
import { toPolicyError, type CompileLogicOptions } from '../logic/compile.js';
import { createOperatorTable } from '../logic/operators.js';
import { restoreBudget, startBudget } from '../logic/budget.js';
import { isTruthy } from '../logic/truthy.js';
import { defaultLimits } from '../logic/types.js';
import { compileContextKey } from './context-key.js';
import { reportError } from './predicate.js';
import { contentRevision } from './revision.js';
import { describeUnmet, requirementKeyReads, requirementReads, type MissingCapabilities } from './requirements.js';
import { compileRules } from './compile-rules.js';
import { decideFirst, FailedRule } from './first-decision.js';
import { checkRulePaths } from './var-paths.js';
import { createPlanner, type PrimitivePlan } from './rule-plan.js';
import { memoFor, newMemoOwner, RequestMemo } from '../request-memo.js';
import { maxRules, policyDocumentSchema, toPolicyIssues, type NormalizedPolicyDocument, type PolicyDocument, type PolicyRule } from './schema.js';
import type { Decision, EvaluationErrorHandler, Policy } from './types.js';
import { toPrimitiveMetadata } from './primitive-input.js';

/** Options of compilePolicy: compileLogic's limits and operators, plus how evaluation reports and decides. */
export interface CompilePolicyOptions extends CompileLogicOptions {
  /** Told about every evaluation that failed (the primitive is hidden for that request). */
  onError?: EvaluationErrorHandler;
  /** Capability-gated primitives when a request declares no capabilities at all (stateless, no envelope). */
  onMissingCapabilities?: MissingCapabilities;
  /** Names the document in error messages (a file name, say). */
  source?: string;
  /** Warnings (an upper-case header name, an unknown capability) are errors too. */
  strict?: boolean;
}

/** Validates and compiles a policy document; throws PolicyCompileError listing every issue. */
export function compilePolicy(document: PolicyDocument | unknown, options: CompilePolicyOptions = {}): Policy & { readonly warnings: readonly PolicyIssue[] } {
  try {
    return compileDocument(boundRules(document), options);
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    // A document built in code can throw from a getter or a proxy: still one error type.
    const message = `could not read the document: ${error instanceof Error ? error.message : String(error)}`;
    throw new PolicyCompileError([{ code: 'invalid_document', path: '', message }], options.source ?? 'policy');
  }
}

/**
 * Over-long rule lists are cut to the maximum before anything reads them (the schema then
 * reports the length), so no document costs more than `maxRules` rules of work.
 */
function boundRules(document: unknown): unknown {
  const rules = (document as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules) || rules.length <= maxRules) return document;
  return { ...(document as object), rules: rules.slice(0, maxRules + 1) };
}

function compileDocument(document: unknown, options: CompilePolicyOptions): Policy & { readonly warnings: readonly PolicyIssue[] } {
  const issues: PolicyIssue[] = [];
  // Custom operators are validated once for the whole policy, even when no rule has a condition.
  const ruleOptions = { ...options, operatorTable: createOperatorTable(options.operators, issues) };
  const parsed = policyDocumentSchema.safeParse(document);
  const reads = new Set<string>();
  if (!parsed.success) {
    issues.push(...toPolicyIssues(parsed.error));
    // Still compile every rule condition that can be found, so one pass reports every issue.
    compileRules(salvageRules(document), ruleOptions, reads, issues);
    issues.push(...checkRulePaths(salvageRules(document), ruleOptions.operatorTable, options).errors);
    throw new PolicyCompileError(sortIssues(issues), options.source ?? 'policy');
  }
  const usage = { iterates: false, memoSlots: 0 };
  const flagDefaults = declaredFlagDefaults(parsed.data);
  const rules = compileRules(parsed.data.rules, { ...ruleOptions, flagDefaults }, reads, issues, usage);
  const paths = checkRulePaths(parsed.data.rules, ruleOptions.operatorTable, options, new Set(Object.keys(flagDefaults)));
  issues.push(...paths.errors);
  const unused = unusedFlags(flagDefaults, reads);
  if (options.strict === true) issues.push(...unused.map((issue) => ({ ...issue, severity: 'error' as const })));
  if (issues.length > 0) throw new PolicyCompileError(sortIssues(issues), options.source ?? 'policy');
  const warnings = options.strict === true || unused.length === 0 ? paths.warnings : Object.freeze([...paths.warnings, ...unused]);
  return Object.freeze({ ...createPolicy(parsed.data, rules, reads, usage, options), warnings });
}

/** The rules of a document that failed validation, as far as they can be read, with their indexes. */
function salvageRules(document: unknown): Array<Pick<PolicyRule, 'id' | 'when'> & { index: number }> {
  const rules = (document as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule: unknown, index) => {
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return [];
    const { id, when } = rule as { id?: unknown; when?: unknown };
    return [{ index, id: typeof id === 'string' ? id : `#${index}`, when }];
  });
}

/** Document order: issues sorted by their position (`rules[2]…` after `rules[1]…`), stable otherwise. */
function sortIssues(issues: PolicyIssue[]): PolicyIssue[] {
  const position = (path: string) => Number(/^rules\[(\d+)\]/.exec(path)?.[1] ?? -1);
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) => position(a.issue.path) - position(b.issue.path) || a.order - b.order)
    .map(({ issue }) => issue);
}

function createPolicy(
  document: NormalizedPolicyDocument,
  rules: readonly CompiledPolicyRule[],
  ruleReads: ReadonlySet<string>,
  { iterates }: { iterates: boolean },
  options: CompilePolicyOptions,
): Policy {
  const enforce = document.enforceRequirements;
  const allowByDefault = document.default === 'allow';
  const planFor = createPlanner(rules, { enforce, onMissingCapabilities: options.onMissingCapabilities ?? 'deny' }, allowByDefault);
  const steps = options.maxIterations ?? defaultLimits.maxIterations;
  const onError = options.onError;
  const requirementMarkers = enforce ? ['client.capabilities', 'request.headers', 'request.endpoint'] : [];
  const reads = Object.freeze([...new Set([...ruleReads, ...requirementMarkers])].sort());
  const flagDefaults = declaredFlagDefaults(document);
  const flags: FlagDefaults = Object.freeze(Object.fromEntries(flagKeysOf(ruleReads).map((key) => [key, flagDefaults[key]!])));
  // A revision names what decides (cursors, caches and feature_flag.version follow it): the
  // invariants `mcp-gate check` proves change no decision, so they are not part of it.
  const { $schema: _schema, invariants: _invariants, ...content } = document;

  function readsFor(primitives: readonly PrimitiveMetadata[]): readonly string[] {
    const extra = enforce ? requirementReads(primitives.map(toPrimitiveMetadata)) : [];
    return Object.freeze([...new Set([...ruleReads, ...extra])].sort());
  }

  /** Whether a rule's condition holds; `when === null` means always. Without a memo (explain), every condition is evaluated. */
  function holds(rule: CompiledPolicyRule, context: RequestContext, primitive: PrimitiveMetadata, memo: RequestMemo | undefined): boolean {
    const when = rule.when;
    if (when === null) return true;
    const slot = memo === undefined ? -1 : rule.memoSlot;
    if (slot >= 0) {
      const known = memo!.rule(slot);
      if (known !== undefined) return known;
    }
    const value = when(context, primitive);
    const result = rule.whenNeverArray ? !!value : isTruthy(value);
    if (slot >= 0) memo!.setRule(slot, result);
    return result;
  }

  // Identifies this policy's memos in contexts (another policy's memo is never read).
  const memoOwner = newMemoOwner();

  // The hot path: one call per primitive per request. Indexed loops, no allocation, and the
  // iteration budget only for policies whose conditions iterate over arrays. Four ways out, each
  // skipping work the one after it would do:
  //   1. no requirement and no rule applies (the plan says so): the default, no memo looked up;
  //   2. an unmet requirement: deny (a list passes its memo; a single decision looks the
  //      context's up only now, when the plan has something to ask);
  //   3. a request's first single decision: the rules as one list of tests (first-decision.ts);
  //   4. otherwise rule by rule with the memo (decidingRule, which explain shares).
  // 3 and 4 are pinned together by test/core/policy/first-decision.test.ts; each has its own
  // error attribution (a FailedRule names the rule).
  function decide(context: RequestContext, given: PrimitiveMetadata, listMemo: RequestMemo | undefined): boolean {
    let primitive = given;
    try {
      primitive = toPrimitiveMetadata(given);
      const plan = planFor(primitive);
      if (plan.defaultDecides) return allowByDefault;
      const memo = listMemo ?? memoFor(context, memoOwner);
      const requirements = plan.requirements;
      if (!requirements.isEmpty && !requirements.met(context, memo)) return false;
      const first = plan.first;
      if (first === undefined) return allowByDefault;
      const rulesMemo = listMemo ?? memo?.rulesForDecision();
      return rulesMemo === undefined ? decideFirst(first, context, primitive) : decideByRules(plan, context, primitive, rulesMemo);
    } catch (error) {
      if (error instanceof FailedRule) reportError(onError, error.error, error.ruleId, primitive);
      else reportError(onError, error, undefined, primitive);
      return false;
    }
  }

  /**
   * The rules' semantics, rule by rule: the first deny rule that holds, else the first allow
   * rule that holds, else undefined (the default decides). A request's later decisions and its
   * lists run it with the request's memo, explain without one; what a condition throws comes
   * out as a FailedRule. A request's first decision runs the same rules as one list of tests
   * instead (first-decision.ts), because most requests decide once and that list saves them a
   * call per rule; test/core/policy/first-decision.test.ts pins the two together (same
   * evaluations in the same order, same answer, same rule blamed).
   */
  function decidingRule(plan: PrimitivePlan, context: RequestContext, primitive: PrimitiveMetadata, memo: RequestMemo | undefined): CompiledPolicyRule | undefined {
    let ruleId = '';
    try {
      const deny = plan.deny;
      for (let index = 0; index < deny.length; index++) {
        const rule = deny[index]!;
        ruleId = rule.id;
        if (holds(rule, context, primitive, memo)) return rule;
      }
      const allow = plan.allow;
      for (let index = 0; index < allow.length; index++) {
        const rule = allow[index]!;
        ruleId = rule.id;
        if (holds(rule, context, primitive, memo)) return rule;
      }
      return undefined;
    } catch (error) {
      throw new FailedRule(ruleId, error);
    }
  }

  function decideByRules(plan: PrimitivePlan, context: RequestContext, primitive: PrimitiveMetadata, memo: RequestMemo): boolean {
    const rule = decidingRule(plan, context, primitive, memo);
    return rule === undefined ? allowByDefault : rule.effect === 'allow';
  }

  function decideWithBudget(context: RequestContext, primitive: PrimitiveMetadata, memo: RequestMemo | undefined): boolean {
    const saved = startBudget(steps);
    try {
      return decide(context, primitive, memo);
    } finally {
      restoreBudget(saved);
    }
  }

  const evaluate = iterates
    ? function evaluateWithBudget(context: RequestContext, primitive: PrimitiveMetadata): boolean {
        return decideWithBudget(context, primitive, undefined);
      }
    : function evaluate(context: RequestContext, primitive: PrimitiveMetadata): boolean {
        return decide(context, primitive, undefined);
      };

  /** Decisions for one request: what reads only the request is decided once, not per primitive. */
  function forContext(context: RequestContext): (primitive: PrimitiveMetadata) => boolean {
    // A hand-made context gets a memo for this list only.
    const memo = memoFor(context, memoOwner) ?? new RequestMemo();
    return iterates ? (primitive) => decideWithBudget(context, primitive, memo) : (primitive) => decide(context, primitive, memo);
  }

  /** A decision with its reason: the same requirements and the same rules (decidingRule) as evaluate, evaluated in full. */
  function explain(context: RequestContext, given: PrimitiveMetadata): Decision {
    const saved = startBudget(steps);
    let primitive = given;
    try {
      primitive = toPrimitiveMetadata(given);
      const plan = planFor(primitive);
      const unmet = plan.requirements.unmet(context);
      if (unmet !== null) return Object.freeze({ allowed: false, reason: 'requirement' as const, ruleId: undefined, message: describeUnmet(unmet), unmet });
      const rule = decidingRule(plan, context, primitive, undefined);
      if (rule === undefined) return decision(allowByDefault, 'default', undefined, `no rule matched; default is ${document.default}`);
      const verb = rule.effect === 'allow' ? 'allowed' : 'denied';
      const detail = rule.description ? `: ${rule.description}` : '';
      return decision(rule.effect === 'allow', 'rule', rule.id, `${verb} by rule "${rule.id}"${detail}`, rule.description);
    } catch (caught) {
      const ruleId = caught instanceof FailedRule ? caught.ruleId : undefined;
      const error = caught instanceof FailedRule ? caught.error : caught;
      reportError(onError, error, ruleId, primitive);
      if (error instanceof MetadataError) {
        const problems = error.issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ');
        return decision(false, 'error', undefined, `invalid metadata (hidden, fail closed): ${problems}`);
      }
      const where = ruleId === undefined ? 'requirements' : `rule "${ruleId}"`;
      return decision(false, 'error', ruleId, `${where} failed (hidden, fail closed): ${toPolicyError(error).message}`);
    } finally {
      restoreBudget(saved);
    }
  }

  /** explain, saying which flags the policy reads hold their defaults because resolving them failed. */
  function explainNotingFallbacks(context: RequestContext, primitive: PrimitiveMetadata): Decision {
    const explained = explain(context, primitive);
    const fallbacks = flagFallbacksOf(context).filter(({ key }) => Object.hasOwn(flags, key));
    if (fallbacks.length === 0) return explained;
    return Object.freeze({ ...explained, message: `${explained.message}; ${describeFlagFallbacks(fallbacks)}`, flagFallbacks: fallbacks });
  }

  return Object.freeze({
    revision: contentRevision(content),
    default: document.default,
    rules: Object.freeze(rules.map(({ id, effect, description }) => Object.freeze({ id, effect, description }))),
    reads,
    callerSpecific: reads.some(isCallerPath),
    cacheable: options.operators === undefined || Object.keys(options.operators).length === 0,
    flags,
    readsFor,
    evaluate,
    forContext,
    explain: Object.keys(flags).length === 0 ? explain : explainNotingFallbacks,
    contextKeyFor(primitives: readonly PrimitiveMetadata[]) {
      const required = enforce ? requirementKeyReads(primitives.map(toPrimitiveMetadata)) : { paths: [], headers: [] };
      return compileContextKey({ paths: [...ruleReads, ...required.paths], requiredHeaders: required.headers });
    },
  });
}

/** Paths that vary between callers; `request.method` and primitive metadata do not. */
export function isCallerPath(path: string): boolean {
  return !(path === 'request.method' || path === 'primitive' || path.startsWith('primitive.'));
}

function decision(allowed: boolean, reason: Decision['reason'], ruleId: string | undefined, message: string, description?: string): Decision {
  return Object.freeze(description === undefined ? { allowed, reason, ruleId, message } : { allowed, reason, ruleId, message, description });
}

import { addHiddenMetadataSlot, type PrimitiveMetadata } from '../primitive-metadata.js';
import { compileGlob, type GlobMatcher } from '../logic/glob-matcher.js';
import type { CompiledPolicyRule } from '../internal-types.js';
import { firstDecision, type FirstDecision } from './first-decision.js';
import type { PolicyRule } from './schema.js';
import { createRequirementCompiler, noRequirements, type MissingCapabilities, type RequirementCheck } from './requirements.js';

/**
 * What the policy must check for one primitive: its requirements and the rules whose `appliesTo`
 * matches it. Depends on metadata only, so it is computed once per primitive, not per request.
 */
export interface PrimitivePlan {
  /** No requirements and no rule applies: the policy's default decides. */
  readonly defaultDecides: boolean;
  readonly requirements: RequirementCheck;
  readonly deny: readonly CompiledPolicyRule[];
  readonly allow: readonly CompiledPolicyRule[];
  /** The same rules as one list of tests, for a request's first decision; undefined when no rule applies. */
  readonly first: FirstDecision | undefined;
}

/**
 * A policy's plan for one primitive, kept in the primitive itself: a hidden slot of metadata
 * built by createPrimitiveMetadata, holding the fields of the last policy that planned it. On
 * the hot path that is one property load; the policy's WeakMap alone made lists 1.3–1.8× and
 * single decisions 1.1–1.4× slower (measured side by side, 2026-12), and a slot holding the
 * plan object instead of its fields 1.1–1.3× (one dependent load more per decision).
 */
interface PlanSlot {
  owner: unknown;
  defaultDecides: boolean;
  requirements: unknown;
  deny: unknown;
  allow: unknown;
  first: unknown;
}

const planSlot: unique symbol = Symbol('mcp-gate.plan');

addHiddenMetadataSlot(planSlot, function emptyPlanSlot(): PlanSlot {
  return { owner: undefined, defaultDecides: false, requirements: undefined, deny: undefined, allow: undefined, first: undefined };
});

/** Whether `primitive` was built by createPrimitiveMetadata (it has a plan slot): already in the shape policies read. */
export function isBuiltMetadata(primitive: unknown): boolean {
  return typeof primitive === 'object' && primitive !== null && (primitive as { [planSlot]?: PlanSlot })[planSlot] !== undefined;
}

export function compileAppliesTo(appliesTo: PolicyRule['appliesTo']): (primitive: PrimitiveMetadata) => boolean {
  if (!appliesTo) return () => true;
  const kinds = appliesTo.kinds ? new Set<string>(appliesTo.kinds) : undefined;
  const names: GlobMatcher[] | undefined = appliesTo.names?.map(compileGlob);
  const groups = appliesTo.groups ? new Set(appliesTo.groups) : undefined;
  const tags = appliesTo.tags ? new Set(appliesTo.tags) : undefined;
  return function appliesToPrimitive(primitive) {
    if (kinds && !kinds.has(primitive.kind)) return false;
    if (names && !names.some((matches) => matches(primitive.name) || (primitive.uri !== undefined && matches(primitive.uri)))) {
      return false;
    }
    if (groups && !primitive.groups.some((group) => groups.has(group))) return false;
    if (tags && !primitive.tags.some((tag) => tags.has(tag))) return false;
    return true;
  };
}

/** Builds (and memoizes, for frozen metadata) the plan of each primitive. */
export function createPlanner(
  rules: readonly CompiledPolicyRule[],
  requirements: { enforce: boolean; onMissingCapabilities: MissingCapabilities },
  allowByDefault: boolean,
): (primitive: PrimitiveMetadata) => PrimitivePlan {
  const plans = new WeakMap<PrimitiveMetadata, PrimitivePlan>();
  const requirementsOf = createRequirementCompiler(requirements.onMissingCapabilities);
  // Primitives with the same applicable rules share one rule list: a registry has many
  // primitives but few distinct lists, and a few shared lists stay in the CPU cache while a
  // request decides primitive after primitive (per-primitive lists were a cache miss each).
  const ruleLists = new Map<string, readonly CompiledPolicyRule[]>();
  const firstDecisions = new Map<string, FirstDecision>();
  const positions = new Map(rules.map((rule, index) => [rule, index]));
  const keyOf = (list: readonly CompiledPolicyRule[]) => list.map((rule) => positions.get(rule)).join(',');
  function sharedList(list: CompiledPolicyRule[]): readonly CompiledPolicyRule[] {
    const key = keyOf(list);
    let known = ruleLists.get(key);
    if (known === undefined) {
      known = list;
      ruleLists.set(key, known);
    }
    return known;
  }
  function sharedFirstDecision(deny: readonly CompiledPolicyRule[], allow: readonly CompiledPolicyRule[]): FirstDecision {
    const key = `${keyOf(deny)}|${keyOf(allow)}`;
    let known = firstDecisions.get(key);
    if (known === undefined) {
      known = firstDecision(deny, allow, allowByDefault);
      firstDecisions.set(key, known);
    }
    return known;
  }
  function buildPlan(primitive: PrimitiveMetadata): PrimitivePlan {
    const applicable = rules.filter((rule) => rule.appliesTo(primitive));
    const checks = requirements.enforce ? requirementsOf(primitive) : noRequirements;
    const deny = sharedList(applicable.filter((rule) => rule.effect === 'deny'));
    const allow = sharedList(applicable.filter((rule) => rule.effect === 'allow'));
    const first = applicable.length === 0 ? undefined : sharedFirstDecision(deny, allow);
    return { defaultDecides: checks.isEmpty && first === undefined, requirements: checks, deny, allow, first };
  }
  const owner = {};
  return function planFor(primitive) {
    // The plan's fields sit in the slot itself: one dependent load fewer on the hot path.
    const slot = (primitive as { [planSlot]?: PlanSlot })[planSlot];
    if (slot !== undefined && slot.owner === owner) return slot as PrimitivePlan;
    let plan = plans.get(primitive);
    if (plan === undefined) {
      plan = buildPlan(primitive);
      // Only frozen metadata is memoized: a mutable object could change under a cached plan.
      if (!Object.isFrozen(primitive)) return plan;
      plans.set(primitive, plan);
    }
    if (slot !== undefined) {
      slot.owner = owner;
      slot.defaultDecides = plan.defaultDecides;
      slot.requirements = plan.requirements;
      slot.deny = plan.deny;
      slot.allow = plan.allow;
      slot.first = plan.first;
    }
    return plan;
  };
}

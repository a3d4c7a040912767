import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import { compileAppliesTo } from '../policy/rule-plan.js';
import type { NormalizedPolicyDocument } from '../policy/schema.js';
import type { Policy } from '../policy/types.js';
import { collectAtoms } from './atoms.js';
import { requirementAtomsOf, type ConditionAtoms } from './condition-atoms.js';

// The model `diff --exhaustive` folds over (diff-fold.ts): each primitive's pair of decisions as
// bits, the conditions those bits read, and the primitives decided alike taken together.

/** One value per policy of the pair. */
export interface PolicySides<T> {
  readonly old: T;
  readonly new: T;
}

// What one primitive's decisions have seen so far, as bits; a primitive whose conditions have
// all been folded in is replaced by its outcome.
export const oldMet = 1;
export const newMet = 2;
export const oldDeny = 4;
export const newDeny = 8;
export const oldAllow = 16;
export const newAllow = 32;
export const unchanged = 64;
export const gained = 65;
export const lost = 66;

export type Role = typeof oldDeny | typeof newDeny | typeof oldAllow | typeof newAllow | 'requirements';

/** A condition (or a requirement check) whose truth some decisions read. */
export interface ConditionNode {
  readonly atoms: ConditionAtoms;
  /** A primitive it is evaluated for (conditions that read primitive fields get one node per primitive). */
  readonly primitive: PrimitiveMetadata;
  holds(context: RequestContext): boolean;
}

/** Primitives decided alike: the same conditions in the same roles, the same requirements. */
export interface Structure {
  readonly primitives: PrimitiveMetadata[];
  readonly roles: ReadonlyArray<{ readonly node: number; readonly role: Role }>;
  readonly start: number;
}

/** The outcome of a primitive whose conditions are all folded in (a final outcome stays). */
export function outcomeOf(flags: number, defaults: PolicySides<boolean>): number {
  if (flags >= unchanged) return flags;
  const allowedBefore = (flags & oldMet) !== 0 && (flags & oldDeny) === 0 && ((flags & oldAllow) !== 0 || defaults.old);
  const allowedAfter = (flags & newMet) !== 0 && (flags & newDeny) === 0 && ((flags & newAllow) !== 0 || defaults.new);
  return allowedBefore === allowedAfter ? unchanged : allowedAfter ? gained : lost;
}

/** A primitive's bits once one of its conditions is known to hold or not. */
export function step(flags: number, role: Role, holds: boolean, enforce: PolicySides<boolean>): number {
  if (role === 'requirements') return holds ? flags : flags & ~((enforce.old ? oldMet : 0) | (enforce.new ? newMet : 0));
  return holds ? flags | role : flags;
}

/** The conditions and structures of both documents over these primitives. */
export function structuresOf(
  documents: PolicySides<NormalizedPolicyDocument>,
  primitives: readonly PrimitiveMetadata[],
  compileOptions: CompilePolicyOptions,
): { nodes: ConditionNode[]; structures: Structure[] } {
  const nodes: ConditionNode[] = [];
  const nodeIndex = new Map<string, number>();
  const probes = new Map<string, Policy>();
  // Conditions of either document: with the flags both declare (each compiled whole first), not strict (see components.ts).
  const flags = { ...documents.old.flags, ...documents.new.flags };
  const probeOptions = { ...compileOptions, strict: false };
  const requirements = compilePolicy({ version: 1, default: 'allow', enforceRequirements: true, rules: [] }, compileOptions);
  const sides = (['old', 'new'] as const).map((side) => ({
    side,
    rules: documents[side].rules.map((rule) => ({ rule, appliesTo: compileAppliesTo(rule.appliesTo), readsPrimitive: rule.when !== undefined && readsPrimitive(rule.when) })),
  }));
  const anyEnforced = documents.old.enforceRequirements || documents.new.enforceRequirements;

  function node(key: string, make: () => ConditionNode): number {
    let index = nodeIndex.get(key);
    if (index === undefined) {
      index = nodes.push(make()) - 1;
      nodeIndex.set(key, index);
    }
    return index;
  }

  function probe(when: unknown): Policy {
    const key = JSON.stringify(when);
    let compiled = probes.get(key);
    if (compiled === undefined) {
      compiled = compilePolicy({ version: 1, default: 'deny', enforceRequirements: false, flags, rules: [{ id: 'condition', effect: 'allow', when }] }, probeOptions);
      probes.set(key, compiled);
    }
    return compiled;
  }

  const structures = new Map<string, Structure>();
  for (const primitive of primitives) {
    const roles: Array<{ node: number; role: Role }> = [];
    let start = oldMet | newMet;
    const hasRequirements = primitive.requires.capabilities.length > 0 || Object.keys(primitive.requires.headers).length > 0 || primitive.endpoints.length > 0;
    if (anyEnforced && hasRequirements) {
      const id = node(`requirements\u0000${JSON.stringify([primitive.requires, primitive.endpoints])}`, () => ({
        atoms: requirementAtomsOf(primitive),
        primitive,
        holds: (context) => requirements.evaluate(context, primitive),
      }));
      roles.push({ node: id, role: 'requirements' });
    }
    for (const { side, rules } of sides) {
      for (const { rule, appliesTo, readsPrimitive: specific } of rules) {
        if (!appliesTo(primitive)) continue;
        const role: Role = side === 'old' ? (rule.effect === 'deny' ? oldDeny : oldAllow) : rule.effect === 'deny' ? newDeny : newAllow;
        if (rule.when === undefined) {
          start |= role;
          continue;
        }
        const when = rule.when;
        const key = `when\u0000${JSON.stringify(when)}${specific ? `\u0000${JSON.stringify(primitive)}` : ''}`;
        const id = node(key, () => {
          const compiled = probe(when);
          return { atoms: collectAtoms(when, primitive, `${side} rule "${rule.id}"`), primitive, holds: (context) => compiled.evaluate(context, primitive) };
        });
        if (!roles.some((known) => known.node === id && known.role === role)) roles.push({ node: id, role });
      }
    }
    const key = `${start}\u0000${roles
      .map(({ node: id, role }) => `${id}:${role}`)
      .sort()
      .join(',')}`;
    let structure = structures.get(key);
    if (structure === undefined) structures.set(key, (structure = { primitives: [], roles, start }));
    structure.primitives.push(primitive);
  }
  return { nodes, structures: [...structures.values()] };
}

function readsPrimitive(condition: unknown): boolean {
  return /"(primitive|tool)(\.|")/.test(JSON.stringify(condition));
}

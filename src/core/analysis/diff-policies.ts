import { createRequestContext, listMethodOf, type PrimitiveMetadata, type RequestContext, type RequestContextInput } from '../context.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import { toPrimitiveMetadata } from '../policy/primitive-input.js';
import { compileAppliesTo } from '../policy/rule-plan.js';
import { policyDocumentSchema, type NormalizedPolicyDocument } from '../policy/schema.js';
import type { Policy } from '../policy/types.js';
import type { Space } from './analysis-types.js';
import { collectAtoms, emptyAtoms, mergeAtoms, requirementAtomsOf, type ConditionAtoms } from './atoms.js';
import { componentsOf, describe } from './components.js';
import { assignmentOf, buildSpace, contextInputOf, createClassCache } from './space.js';

// `mcp-gate diff --exhaustive`: who sees what differently under a new policy, over every
// context. A primitive's two decisions (old and new) depend on the conditions of the rules that
// apply to it in either policy and on its requirements; primitives with the same ones (most of
// a manifest) are decided alike and are taken together. Those whose decisions can differ are
// joined into groups that read common context paths: groups share no path, so a caller's change
// is the union of one class per group (or none), and each group's classes — the distinct
// (gains, losses) its callers get — are listed on their own instead of multiplied out. Within a
// group, conditions that share a path are enumerated together (components.ts), and the
// components are joined by a fold over each primitive's (requirements met, some deny holds, some
// allow holds) under both policies. Every class is confirmed on its context by both compiled
// policies before it is reported.

export interface PolicyDiffClass {
  /** Primitives of the group these callers see under the new policy only. */
  readonly gains: readonly PrimitiveMetadata[];
  /** Primitives of the group these callers see under the old policy only. */
  readonly loses: readonly PrimitiveMetadata[];
  /**
   * A request of the class (what `mcp-gate explain --context` takes), the first found with
   * classes tried cheapest first; every other group is kept unchanged in it where a caller can
   * be, so both policies' decisions on it differ by exactly `gains` and `loses` then.
   */
  readonly context: RequestContextInput;
}

export interface PolicyDiffGroup {
  /** The context paths that tell the group's classes apart (empty: the change is the same for every caller). */
  readonly paths: readonly string[];
  readonly classes: readonly PolicyDiffClass[];
}

export interface PolicyDiff {
  readonly groups: readonly PolicyDiffGroup[];
  /** Why some change may be missing (what the analysis cannot model, bounds it hit); empty when exact. */
  readonly unknown: readonly string[];
  /** True when every class of callers whose view changes is listed. */
  readonly exact: boolean;
  /** Class combinations decided, over all enumerations. */
  readonly contexts: number;
}

export interface DiffPoliciesOptions {
  /** Passed to compilePolicy for both documents. */
  readonly compile?: CompilePolicyOptions;
  /** Most class combinations enumerated for one group of conditions, and most states of a fold (default 100,000). */
  readonly maxCombinations?: number;
}

const defaultMaxCombinations = 100_000;

// What one primitive's decisions have seen so far, as bits; a primitive whose conditions have
// all been folded in is replaced by its outcome.
const oldMet = 1;
const newMet = 2;
const oldDeny = 4;
const newDeny = 8;
const oldAllow = 16;
const newAllow = 32;
const unchanged = 64;
const gained = 65;
const lost = 66;

type Role = typeof oldDeny | typeof newDeny | typeof oldAllow | typeof newAllow | 'requirements';

/** A condition (or a requirement check) whose truth some decisions read. */
interface ConditionNode {
  readonly atoms: ConditionAtoms;
  /** A primitive it is evaluated for (conditions that read primitive fields get one node per primitive). */
  readonly primitive: PrimitiveMetadata;
  holds(context: RequestContext): boolean;
}

/** Primitives decided alike: the same conditions in the same roles, the same requirements. */
interface Structure {
  readonly primitives: PrimitiveMetadata[];
  readonly roles: ReadonlyArray<{ readonly node: number; readonly role: Role }>;
  readonly start: number;
}

interface Classified {
  readonly space: Space;
  readonly inexact: string[];
  /** Outcome per structure ('0', '+', '-' in the order given) → the first choice that gives it. */
  readonly outcomes: Map<string, number[]>;
}

/** Every class of callers whose view of `primitives` changes from the old policy to the new one. */
export function diffPolicies(oldDocument: unknown, newDocument: unknown, primitives: readonly PrimitiveMetadata[], options: DiffPoliciesOptions = {}): PolicyDiff {
  const compileOptions = options.compile ?? {};
  const maxCombinations = options.maxCombinations ?? defaultMaxCombinations;
  const before = compilePolicy(oldDocument, compileOptions);
  const after = compilePolicy(newDocument, compileOptions);
  const documents = { old: policyDocumentSchema.parse(oldDocument), new: policyDocumentSchema.parse(newDocument) };
  const metadata = primitives.map((primitive) => toPrimitiveMetadata(primitive));
  const classesOf = createClassCache();
  const { nodes, structures } = structuresOf(documents, metadata, compileOptions);
  const defaults = { old: documents.old.default === 'allow', new: documents.new.default === 'allow' };
  const enforce = { old: documents.old.enforceRequirements, new: documents.new.enforceRequirements };
  let contexts = 0;

  function outcomeOf(flags: number): number {
    if (flags >= unchanged) return flags;
    const allowedBefore = (flags & oldMet) !== 0 && (flags & oldDeny) === 0 && ((flags & oldAllow) !== 0 || defaults.old);
    const allowedAfter = (flags & newMet) !== 0 && (flags & newDeny) === 0 && ((flags & newAllow) !== 0 || defaults.new);
    return allowedBefore === allowedAfter ? unchanged : allowedAfter ? gained : lost;
  }

  function step(flags: number, role: Role, holds: boolean): number {
    if (role === 'requirements') return holds ? flags : flags & ~((enforce.old ? oldMet : 0) | (enforce.new ? newMet : 0));
    return holds ? flags | role : flags;
  }

  /** The outcomes a set of structures can have together, with a choice of classes for each. */
  function classify(members: readonly number[], label: string): Classified {
    const nodeIds = [...new Set(members.flatMap((member) => structures[member]!.roles.map(({ node }) => node)))];
    const all = emptyAtoms();
    for (const id of nodeIds) mergeAtoms(all, nodes[id]!.atoms);
    const space = buildSpace(all, label, classesOf);
    const inexact = [...space.inexact];
    const components = componentsOf(
      nodeIds.map((id) => nodes[id]!),
      space,
    ).map(({ nodes: local, positions }) => {
      const ids = local.map((index) => nodeIds[index]!);
      return { ids, positions, answers: answersOf(space, ids, positions, label, inexact) };
    });
    // Each structure is final once the last component holding one of its conditions is folded.
    const lastComponent = members.map((member) => {
      let last = -1;
      components.forEach((component, index) => {
        if (structures[member]!.roles.some(({ node }) => component.ids.includes(node))) last = index;
      });
      return last;
    });
    const finalize = (flags: number[], done: number) => flags.map((value, index) => (lastComponent[index]! <= done ? outcomeOf(value) : value));
    let states = new Map<string, { flags: number[]; choice: number[] }>();
    const first = finalize(
      members.map((member) => structures[member]!.start),
      -1,
    );
    states.set(first.join(','), { flags: first, choice: space.paths.map(() => 0) });
    components.forEach((component, componentIndex) => {
      const next = new Map<string, { flags: number[]; choice: number[] }>();
      for (const state of states.values()) {
        for (const answer of component.answers) {
          const flags = state.flags.map((value, index) => {
            if (value >= unchanged) return value;
            let updated = value;
            for (const { node, role } of structures[members[index]!]!.roles) {
              const holds = answer.holds.get(node);
              if (holds !== undefined) updated = step(updated, role, holds);
            }
            return updated;
          });
          const finalFlags = finalize(flags, componentIndex);
          const key = finalFlags.join(',');
          if (next.has(key)) continue;
          if (next.size >= maxCombinations) {
            inexact.push(`${label}: more than ${maxCombinations} combinations of decisions`);
            break;
          }
          const choice = [...state.choice];
          for (const position of component.positions) choice[position] = answer.choice[position]!;
          next.set(key, { flags: finalFlags, choice });
        }
      }
      states = next;
    });
    const outcomes = new Map<string, number[]>();
    for (const { flags, choice } of states.values()) {
      const key = flags.map((value) => (value === gained ? '+' : value === lost ? '-' : '0')).join('');
      if (!outcomes.has(key)) outcomes.set(key, choice);
    }
    return { space, inexact: [...new Set(inexact)], outcomes };
  }

  // A group enumerates the components its structures enumerated alone (same conditions, same
  // classes): their answers are kept, by the conditions and the identity of the class lists.
  const answerCache = new Map<string, Array<{ holds: Map<number, boolean>; choice: Map<string, unknown> }>>();
  const listIds = new WeakMap<object, number>();
  let lists = 0;
  const listId = (list: object) => {
    let id = listIds.get(list);
    if (id === undefined) listIds.set(list, (id = ++lists));
    return id;
  };

  /** The distinct answers of some conditions over the classes of their paths, one choice each. */
  function answersOf(space: Space, ids: readonly number[], positions: readonly number[], label: string, inexact: string[]) {
    const size = positions.reduce((product, position) => product * space.values[position]!.length, 1);
    if (size > maxCombinations) inexact.push(`${label}: ${size} class combinations of one group of conditions exceed the bound of ${maxCombinations}`);
    const key = `${ids.join(',')}|${positions.map((position) => `${space.paths[position]}#${listId(space.values[position]!)}`).join('|')}`;
    let found = answerCache.get(key);
    if (found === undefined) answerCache.set(key, (found = enumerateAnswers(space, ids, positions, size)));
    return found.map(({ holds, choice }) => ({ holds, choice: space.paths.map((path, index) => (choice.has(path) ? space.values[index]!.indexOf(choice.get(path)) : 0)) }));
  }

  function enumerateAnswers(space: Space, ids: readonly number[], positions: readonly number[], size: number) {
    const seen = new Map<string, { holds: Map<number, boolean>; choice: Map<string, unknown> }>();
    const choice = space.paths.map(() => 0);
    for (let count = 0; count < Math.min(size, maxCombinations); count++) {
      contexts++;
      const assignment = assignmentOf(space, choice);
      const contextFor = contextMaker(assignment);
      const holds = new Map(ids.map((id) => [id, nodes[id]!.holds(contextFor(nodes[id]!.primitive))]));
      const key = [...holds.values()].map(Number).join('');
      if (!seen.has(key)) seen.set(key, { holds, choice: new Map(positions.map((position) => [space.paths[position]!, space.values[position]![choice[position]!]])) });
      let index = positions.length - 1;
      while (index >= 0) {
        const position = positions[index]!;
        if (++choice[position]! < space.values[position]!.length) break;
        choice[position] = 0;
        index--;
      }
      if (index < 0) break;
    }
    return [...seen.values()];
  }

  // 1. Which structures can change at all, each on its own paths.
  const unknown: string[] = [];
  const changing: Array<{ member: number; paths: readonly string[] }> = [];
  // Primitives proven to be decided alike by both policies for every context.
  const exactlyUnchanged: PrimitiveMetadata[] = [];
  // What each reason says past its label, so that a group does not repeat its members' reasons.
  const said = new Set<string>();
  structures.forEach((structure, member) => {
    const label = describeAll(structure.primitives);
    const alone = classify([member], label);
    if ([...alone.outcomes.keys()].some((key) => key !== '0')) changing.push({ member, paths: alone.space.paths });
    else if (alone.inexact.length === 0) exactlyUnchanged.push(...structure.primitives);
    unknown.push(...alone.inexact);
    for (const reason of alone.inexact) said.add(reason.slice(label.length));
  });

  // 2. Groups of changing structures that read common paths, each classified as a whole.
  const groups = groupByPaths(changing).map((members) => {
    const label = describeAll(members.flatMap((member) => structures[member]!.primitives));
    const classified = classify(members, label);
    unknown.push(...classified.inexact.filter((reason) => !said.has(reason.slice(label.length))));
    const outcomes = [...classified.outcomes.entries()];
    const neutral = outcomes.find(([key]) => !key.includes('+') && !key.includes('-')) ?? outcomes[0];
    return { members, classified, outcomes: outcomes.filter(([key]) => key.includes('+') || key.includes('-')), base: neutral };
  });

  // 3. One context per class, every other group at its base, confirmed by both policies.
  const order = new Map(metadata.map((primitive, index) => [primitive, index]));
  const reported: PolicyDiffGroup[] = [];
  groups.forEach((group, groupIndex) => {
    const classes: PolicyDiffClass[] = [];
    for (const [key, choice] of group.outcomes) {
      const assignment = new Map<string, unknown>();
      groups.forEach((other, otherIndex) => {
        if (otherIndex === groupIndex || other.base === undefined) return;
        for (const [path, value] of assignmentOf(other.classified.space, other.base[1])) assignment.set(path, value);
      });
      for (const [path, value] of assignmentOf(group.classified.space, choice)) assignment.set(path, value);
      const gains: PrimitiveMetadata[] = [];
      const loses: PrimitiveMetadata[] = [];
      group.members.forEach((member, index) => {
        if (key[index] === '+') gains.push(...structures[member]!.primitives);
        if (key[index] === '-') loses.push(...structures[member]!.primitives);
      });
      const expected = new Map<PrimitiveMetadata, string>();
      groups.forEach((other, otherIndex) => {
        const outcome = otherIndex === groupIndex ? key : other.base?.[0];
        other.members.forEach((member, index) => {
          for (const primitive of structures[member]!.primitives) expected.set(primitive, outcome?.[index] ?? '0');
        });
      });
      for (const primitive of exactlyUnchanged) expected.set(primitive, '0');
      const contextFor = contextMaker(assignment);
      const confirmed = [...expected].every(([primitive, outcome]) => {
        const context = contextFor(primitive);
        const was = before.evaluate(context, primitive);
        const is = after.evaluate(context, primitive);
        return (was === is ? '0' : is ? '+' : '-') === outcome;
      });
      if (!confirmed) {
        unknown.push(`${describeAll([...gains, ...loses])}: a context the analysis built was not decided as it predicted`);
        continue;
      }
      const byOrder = (a: PrimitiveMetadata, b: PrimitiveMetadata) => order.get(a)! - order.get(b)!;
      classes.push({ gains: gains.sort(byOrder), loses: loses.sort(byOrder), context: contextInputOf(assignment) });
    }
    if (classes.length > 0) reported.push({ paths: group.classified.space.paths, classes });
  });
  const reasons = [...new Set(unknown)];
  return { groups: reported, unknown: reasons, exact: reasons.length === 0, contexts };

  function contextMaker(assignment: ReadonlyMap<string, unknown>): (primitive: PrimitiveMetadata) => RequestContext {
    const input = contextInputOf(assignment);
    const byKind = new Map<string, RequestContext>();
    // Not read: the method a list of this kind is decided for (as `mcp-gate explain` does).
    return (primitive) => {
      const method = assignment.has('request.method') ? undefined : listMethodOf(primitive.kind);
      let context = byKind.get(primitive.kind);
      if (context === undefined) {
        byKind.set(primitive.kind, (context = createRequestContext(method === undefined ? input : { ...input, request: { ...input.request, method } })));
      }
      return context;
    };
  }
}

/** The conditions and structures of both documents over these primitives. */
function structuresOf(
  documents: { readonly old: NormalizedPolicyDocument; readonly new: NormalizedPolicyDocument },
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

/** Structures joined when they read a common context path. */
function groupByPaths(changing: ReadonlyArray<{ readonly member: number; readonly paths: readonly string[] }>): number[][] {
  const parent = changing.map((_, index) => index);
  const find = (index: number): number => (parent[index] === index ? index : (parent[index] = find(parent[index]!)));
  const owner = new Map<string, number>();
  changing.forEach(({ paths }, index) => {
    for (const path of paths) {
      const other = owner.get(path);
      if (other === undefined) owner.set(path, index);
      else parent[find(index)] = find(other);
    }
  });
  const groups = new Map<number, number[]>();
  changing.forEach(({ member }, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), member]);
  });
  return [...groups.values()];
}

/** `tool a`, `tool a, tool b, tool c and 4 more`: how reasons name primitives decided alike. */
function describeAll(primitives: readonly PrimitiveMetadata[]): string {
  const named = primitives.slice(0, 3).map(describe).join(', ');
  return primitives.length > 3 ? `${named} and ${primitives.length - 3} more` : named;
}

function readsPrimitive(condition: unknown): boolean {
  return /"(primitive|tool)(\.|")/.test(JSON.stringify(condition));
}

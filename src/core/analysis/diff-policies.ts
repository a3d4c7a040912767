import type { RequestContextInput } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import { toPrimitiveMetadata } from '../policy/primitive-input.js';
import { policyDocumentSchema } from '../policy/schema.js';
import { describe } from './components.js';
import { contextMaker, createDiffFold } from './diff-fold.js';
import { structuresOf } from './diff-structures.js';
import { assignmentOf, contextInputOf } from './space.js';

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

/** Every class of callers whose view of `primitives` changes from the old policy to the new one. */
export function diffPolicies(oldDocument: unknown, newDocument: unknown, primitives: readonly PrimitiveMetadata[], options: DiffPoliciesOptions = {}): PolicyDiff {
  const compileOptions = options.compile ?? {};
  const before = compilePolicy(oldDocument, compileOptions);
  const after = compilePolicy(newDocument, compileOptions);
  const documents = { old: policyDocumentSchema.parse(oldDocument), new: policyDocumentSchema.parse(newDocument) };
  const metadata = primitives.map((primitive) => toPrimitiveMetadata(primitive));
  const { nodes, structures } = structuresOf(documents, metadata, compileOptions);
  const fold = createDiffFold({
    nodes,
    structures,
    defaults: { old: documents.old.default === 'allow', new: documents.new.default === 'allow' },
    enforce: { old: documents.old.enforceRequirements, new: documents.new.enforceRequirements },
    maxCombinations: options.maxCombinations ?? defaultMaxCombinations,
  });

  // 1. Which structures can change at all, each on its own paths.
  const unknown: string[] = [];
  const changing: Array<{ member: number; paths: readonly string[] }> = [];
  // Primitives proven to be decided alike by both policies for every context.
  const exactlyUnchanged: PrimitiveMetadata[] = [];
  // What each reason says past its label, so that a group does not repeat its members' reasons.
  const said = new Set<string>();
  structures.forEach((structure, member) => {
    const label = describeAll(structure.primitives);
    const alone = fold.classify([member], label);
    if ([...alone.outcomes.keys()].some((key) => key !== '0')) changing.push({ member, paths: alone.space.paths });
    else if (alone.inexact.length === 0) exactlyUnchanged.push(...structure.primitives);
    unknown.push(...alone.inexact);
    for (const reason of alone.inexact) said.add(reason.slice(label.length));
  });

  // 2. Groups of changing structures that read common paths, each classified as a whole.
  const groups = groupByPaths(changing).map((members) => {
    const label = describeAll(members.flatMap((member) => structures[member]!.primitives));
    const classified = fold.classify(members, label);
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
  return { groups: reported, unknown: reasons, exact: reasons.length === 0, contexts: fold.contexts() };
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

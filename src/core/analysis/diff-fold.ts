import { createRequestContext, type RequestContext } from '../context.js';
import { listMethodOf, type PrimitiveMetadata } from '../primitive-metadata.js';
import type { Space } from './analysis-types.js';
import { emptyAtoms, mergeAtoms } from './condition-atoms.js';
import { componentsOf } from './components.js';
import { gained, lost, outcomeOf, step, unchanged, type ConditionNode, type PolicySides, type Structure } from './diff-structures.js';
import { assignmentOf, buildSpace, contextInputOf, createClassCache } from './space.js';

// The fold of `diff --exhaustive` (see diff-policies.ts): the outcomes a set of structures can
// have together over the classes of the paths their conditions read, one component of
// conditions at a time, with the first choice of classes that gives each outcome.

export interface Classified {
  readonly space: Space;
  readonly inexact: string[];
  /** Outcome per structure ('0', '+', '-' in the order given) → the first choice that gives it. */
  readonly outcomes: Map<string, number[]>;
}

export interface DiffFoldSettings {
  readonly nodes: readonly ConditionNode[];
  readonly structures: readonly Structure[];
  /** Each policy's `default === 'allow'`. */
  readonly defaults: PolicySides<boolean>;
  /** Each policy's `enforceRequirements`. */
  readonly enforce: PolicySides<boolean>;
  readonly maxCombinations: number;
}

export interface DiffFold {
  classify(members: readonly number[], label: string): Classified;
  /** Class combinations decided so far. */
  contexts(): number;
}

export function createDiffFold({ nodes, structures, defaults, enforce, maxCombinations }: DiffFoldSettings): DiffFold {
  const classesOf = createClassCache();
  let contexts = 0;

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
    const finalize = (flags: number[], done: number) => flags.map((value, index) => (lastComponent[index]! <= done ? outcomeOf(value, defaults) : value));
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
              if (holds !== undefined) updated = step(updated, role, holds, enforce);
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

  return { classify, contexts: () => contexts };
}

/** The request of an assignment of classes, per primitive kind (each decided as its list would be). */
export function contextMaker(assignment: ReadonlyMap<string, unknown>): (primitive: PrimitiveMetadata) => RequestContext {
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

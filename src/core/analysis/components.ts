import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import type { NormalizedPolicyDocument, PolicyRule } from '../policy/schema.js';
import type { Policy } from '../policy/types.js';
import type { Analysis, Node, RuleInfo, Space } from './analysis-types.js';

// A decision is the requirement check, then any deny rule, then any allow rule, then the
// default; so which rules hold is all that matters. Rules that share no context path are
// independent: each group of them (a component) is enumerated on its own paths, keeping one
// context per combination of answers, and the groups are joined by a small fold over
// (requirements met, some deny holds, some allow holds). What the fold predicts is always
// confirmed on a concrete context by the real policy.

/** The answers of one component's nodes for one of its contexts. */
export interface Answers {
  /** Node index (in nodesFor's order) → whether it holds. */
  readonly holds: ReadonlyMap<number, boolean>;
  /** The global choice of classes that gives them (only the component's paths set). */
  readonly choice: readonly number[];
}

export interface Component {
  readonly nodes: readonly number[];
  readonly positions: readonly number[];
  readonly answers: readonly Answers[];
}

/** Groups nodes that share a context path, each with the positions of its paths in the space. */
export function componentsOf(nodes: ReadonlyArray<{ readonly atoms: Node['atoms'] }>, space: Space): Array<{ nodes: number[]; positions: number[] }> {
  const parent = nodes.map((_, index) => index);
  const find = (index: number): number => (parent[index] === index ? index : (parent[index] = find(parent[index]!)));
  const owner = new Map<string, number>();
  nodes.forEach((node, index) => {
    for (const path of node.atoms.paths.keys()) {
      const other = owner.get(path);
      if (other === undefined) owner.set(path, index);
      else parent[find(index)] = find(other);
    }
  });
  const groups = new Map<number, { nodes: number[]; positions: number[] }>();
  nodes.forEach((node, index) => {
    const root = find(index);
    let group = groups.get(root);
    if (group === undefined) groups.set(root, (group = { nodes: [], positions: [] }));
    group.nodes.push(index);
    for (const path of node.atoms.paths.keys()) {
      const position = space.paths.indexOf(path);
      if (!group.positions.includes(position)) group.positions.push(position);
    }
  });
  return [...groups.values()];
}

export interface Flags {
  readonly met: boolean;
  readonly deny: boolean;
  readonly allow: boolean;
  /** The rule under test holds (shadowing), else false. */
  readonly subject: boolean;
}

/** Every combination of the components' answers, folded into flags; one merged choice per distinct flags. */
export function fold(
  components: readonly Component[],
  start: Flags,
  step: (flags: Flags, node: number, holds: boolean) => Flags,
  width: number,
): Array<{ flags: Flags; choice: number[] }> {
  let states = new Map<string, { flags: Flags; choice: number[] }>([[key(start), { flags: start, choice: new Array<number>(width).fill(0) }]]);
  for (const component of components) {
    const next = new Map<string, { flags: Flags; choice: number[] }>();
    for (const state of states.values()) {
      for (const answers of component.answers) {
        let flags = state.flags;
        for (const [node, holds] of answers.holds) flags = step(flags, node, holds);
        const known = key(flags);
        if (next.has(known)) continue;
        const choice = [...state.choice];
        for (const position of component.positions) choice[position] = answers.choice[position]!;
        next.set(known, { flags, choice });
      }
    }
    states = next;
  }
  return [...states.values()];
}

function key(flags: Flags): string {
  return `${+flags.met}${+flags.deny}${+flags.allow}${+flags.subject}`;
}

/** Single-rule policies say whether a condition holds; one without rules whether the requirements are met. */
export function createProbes(document: NormalizedPolicyDocument, compileOptions: CompilePolicyOptions) {
  const probes = new Map<number, Policy>();
  // A probe is a part of a document that compiled: its flags are the document's, and strictness
  // (checked on the whole) would only turn the flags other rules read into errors here.
  const flags = document.flags;
  const probeOptions = { ...compileOptions, strict: false };
  const requirements = compilePolicy({ version: 1, default: 'allow', enforceRequirements: document.enforceRequirements, rules: [] }, compileOptions);
  function probe(info: RuleInfo): Policy {
    let compiled = probes.get(info.index);
    if (compiled === undefined) {
      const { when, id, appliesTo } = info.rule;
      probes.set(
        info.index,
        (compiled = compilePolicy({ version: 1, default: 'deny', enforceRequirements: false, flags, rules: [{ id, effect: 'allow', appliesTo, when }] }, probeOptions)),
      );
    }
    return compiled;
  }
  function holdsAt(node: Node, context: RequestContext, primitive: PrimitiveMetadata): boolean {
    return node.kind === 'requirements' ? requirements.evaluate(context, primitive) : probe(node.info).evaluate(context, primitive);
  }
  return { probe, requirements, holdsAt };
}

/** The distinct answers of a component's nodes over its classes, one choice each. */
export function answersOf(
  analysis: Analysis,
  space: Space,
  members: readonly number[],
  positions: readonly number[],
  nodes: readonly Node[],
  primitive: PrimitiveMetadata,
  holdsAt: (node: Node, context: RequestContext, primitive: PrimitiveMetadata) => boolean,
): Answers[] {
  const seen = new Map<string, Answers>();
  analysis.forEachInComponent(space, positions, primitive, (context, choice) => {
    const holds = new Map(members.map((member) => [member, holdsAt(nodes[member]!, context, primitive)]));
    const answerKey = [...holds.values()].map(Number).join('');
    if (!seen.has(answerKey)) seen.set(answerKey, { holds, choice: [...choice] });
    return false;
  });
  return [...seen.values()];
}

/** How one node's answer changes the flags; `subject` is the rule whose own answer is tracked apart. */
export function stepFlags(nodes: readonly Node[], flags: Flags, member: number, holds: boolean, subject?: RuleInfo): Flags {
  const node = nodes[member]!;
  if (node.kind === 'requirements') return { ...flags, met: flags.met && holds };
  if (!holds) return flags;
  if (node.info === subject) return { ...flags, subject: true };
  return node.info.rule.effect === 'deny' ? { ...flags, deny: true } : { ...flags, allow: true };
}

/** `tool admin_users`, `tool search@2.0.0`, `resource workspace` — how reasons name a primitive. */
export function describe(primitive: PrimitiveMetadata): string {
  return `${primitive.kind} ${primitive.name}${primitive.version === undefined ? '' : `@${primitive.version}`}`;
}

export function namesPrimitives(rule: PolicyRule): boolean {
  const appliesTo = rule.appliesTo;
  return appliesTo !== undefined && (appliesTo.names !== undefined || appliesTo.groups !== undefined || appliesTo.tags !== undefined);
}

import type { PrimitiveMetadata, RequestContext } from '../context.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import type { NormalizedPolicyDocument } from '../policy/schema.js';
import type { Policy } from '../policy/types.js';
import { describe, namesPrimitives, type Analysis, type LintFinding, type Node, type RuleInfo, type Space } from './check-policy.js';

// Lint over every context. A decision is the requirement check, then any deny rule, then any
// allow rule, then the default; so which rules hold is all that matters. Rules that share no
// context path are independent: each group of them (a component) is enumerated on its own paths,
// keeping one context per combination of answers, and the combinations of the groups are joined
// by a small fold over (requirements met, some deny holds, some allow holds). Every answer lint
// gives is then confirmed on a concrete context by the real policies.

/** The answers of one component's nodes for one of its contexts. */
interface Answers {
  /** Node index (in nodesFor's order) → whether it holds. */
  readonly holds: ReadonlyMap<number, boolean>;
  /** The global choice of classes that gives them (only the component's paths set). */
  readonly choice: readonly number[];
}

interface Component {
  readonly nodes: readonly number[];
  readonly positions: readonly number[];
  readonly answers: readonly Answers[];
}

/** Groups nodes that share a context path, each with the positions of its paths in the space. */
function componentsOf(nodes: readonly Node[], space: Space): Array<{ nodes: number[]; positions: number[] }> {
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

interface Flags {
  readonly met: boolean;
  readonly deny: boolean;
  readonly allow: boolean;
  /** The rule under test holds (shadowing), else false. */
  readonly subject: boolean;
}

/** Every combination of the components' answers, folded into flags; one merged choice per distinct flags. */
function fold(components: readonly Component[], start: Flags, step: (flags: Flags, node: number, holds: boolean) => Flags, width: number): Array<{ flags: Flags; choice: number[] }> {
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

interface RuleState {
  applies: number;
  exact: boolean;
  everTrue: boolean;
  everFalse: boolean;
  matters: boolean;
}

export function lintPolicy(
  analysis: Analysis,
  document: NormalizedPolicyDocument,
  primitives: readonly PrimitiveMetadata[],
  _source: unknown,
  compileOptions: CompilePolicyOptions,
): { findings: LintFinding[]; unknown: string[] } {
  const { policy, rules } = analysis;
  const findings: LintFinding[] = [];
  const unknown: string[] = [];
  const allowByDefault = document.default === 'allow';
  // Single-rule policies say whether a condition holds; one without requirements rules says whether they are met.
  const probes = new Map<number, Policy>();
  const requirements = compilePolicy({ version: 1, default: 'allow', enforceRequirements: document.enforceRequirements, rules: [] }, compileOptions);
  const probe = (info: RuleInfo) => {
    let compiled = probes.get(info.index);
    if (compiled === undefined) {
      const { when, id, appliesTo } = info.rule;
      probes.set(info.index, (compiled = compilePolicy({ version: 1, default: 'deny', enforceRequirements: false, rules: [{ id, effect: 'allow', appliesTo, when }] }, compileOptions)));
    }
    return compiled;
  };
  // The decision without one rule, from the other rules' single-rule policies (compiling the
  // policy once per rule left out cost 200 compilations of 199 rules on a 200-rule policy).
  const decideWithout = (left: RuleInfo, applicable: readonly RuleInfo[], context: RequestContext, primitive: PrimitiveMetadata): boolean => {
    if (!requirements.evaluate(context, primitive)) return false;
    const others = applicable.filter((info) => info !== left);
    const holds = (info: RuleInfo) => info.rule.when === undefined || probe(info).evaluate(context, primitive);
    if (others.some((info) => info.rule.effect === 'deny' && holds(info))) return false;
    return others.some((info) => info.rule.effect === 'allow' && holds(info)) || allowByDefault;
  };
  const ruleState: RuleState[] = rules.map(() => ({ applies: 0, exact: true, everTrue: false, everFalse: false, matters: false }));
  const perPrimitive: Array<{ primitive: PrimitiveMetadata; exact: boolean; visible: boolean; hidden: boolean }> = [];

  for (const primitive of primitives) {
    const space = analysis.spaceFor(primitive);
    const applicable = analysis.applicable(primitive);
    const nodes = analysis.nodesFor(primitive);
    const inexact = [...space.inexact];
    const components: Component[] = componentsOf(nodes, space).map(({ nodes: members, positions }) => {
      const combinations = positions.reduce((product, position) => product * space.values[position]!.length, 1);
      if (combinations > analysis.maxCombinations) inexact.push(`${describe(primitive)}: ${combinations} class combinations of one group of rules exceed the bound of ${analysis.maxCombinations}`);
      const seen = new Map<string, Answers>();
      analysis.forEachInComponent(space, positions, primitive, (context, choice) => {
        const holds = new Map(members.map((member) => [member, holdsAt(nodes[member]!, context, primitive)]));
        const answerKey = [...holds.values()].map(Number).join('');
        if (!seen.has(answerKey)) seen.set(answerKey, { holds, choice: [...choice] });
        return false;
      });
      return { nodes: members, positions, answers: [...seen.values()] };
    });
    const exact = inexact.length === 0;
    if (!exact) unknown.push(...inexact);

    // Conditions: the answers each rule gives in its own component.
    for (const component of components) {
      for (const answers of component.answers) {
        for (const [member, holds] of answers.holds) {
          const node = nodes[member]!;
          if (node.kind !== 'rule') continue;
          if (holds) ruleState[node.info.index]!.everTrue = true;
          else ruleState[node.info.index]!.everFalse = true;
        }
      }
    }
    // Rules without a condition hold always.
    const constantDeny = applicable.some((info) => info.rule.when === undefined && info.rule.effect === 'deny');
    const constantAllow = applicable.some((info) => info.rule.when === undefined && info.rule.effect === 'allow');
    const nodeStep = (flags: Flags, member: number, holds: boolean, subject?: RuleInfo): Flags => {
      const node = nodes[member]!;
      if (node.kind === 'requirements') return { ...flags, met: flags.met && holds };
      if (!holds) return flags;
      if (node.info === subject) return { ...flags, subject: true };
      return node.info.rule.effect === 'deny' ? { ...flags, deny: true } : { ...flags, allow: true };
    };
    const allowed = (flags: Flags) => flags.met && !flags.deny && (flags.allow || allowByDefault);
    const states = fold(components, { met: true, deny: constantDeny, allow: constantAllow, subject: false }, (flags, member, holds) => nodeStep(flags, member, holds), space.paths.length);
    const confirm = (choice: readonly number[], check: (context: RequestContext) => boolean): boolean => {
      const context = contextAt(analysis, space, choice, primitive);
      if (check(context)) return true;
      // The fold and the policy disagree: the analysis is wrong here, so it says nothing.
      inexact.push(`${describe(primitive)}: a context the analysis built was not decided as it predicted`);
      return false;
    };
    const visibleState = states.find((state) => allowed(state.flags));
    const hiddenState = states.find((state) => !allowed(state.flags));
    const visible = visibleState !== undefined && confirm(visibleState.choice, (context) => policy.evaluate(context, primitive));
    const hidden = hiddenState !== undefined && confirm(hiddenState.choice, (context) => !policy.evaluate(context, primitive));

    // Shadowing: is there a context where the decision with the rule differs from the one without?
    for (const info of applicable) {
      const state = ruleState[info.index]!;
      state.applies++;
      if (state.matters) continue;
      const deny = info.rule.effect === 'deny';
      const otherDeny = applicable.some((other) => other !== info && other.rule.when === undefined && other.rule.effect === 'deny');
      const otherAllow = applicable.some((other) => other !== info && other.rule.when === undefined && other.rule.effect === 'allow');
      const start: Flags = { met: true, deny: otherDeny, allow: otherAllow, subject: info.rule.when === undefined };
      const withSubject = fold(components, start, (flags, member, holds) => nodeStep(flags, member, holds, info), space.paths.length);
      const differs = withSubject.find(({ flags }) => {
        const withIt = flags.met && !(flags.deny || (deny && flags.subject)) && (flags.allow || (!deny && flags.subject) || allowByDefault);
        const withoutIt = flags.met && !flags.deny && (flags.allow || allowByDefault);
        return withIt !== withoutIt;
      });
      if (differs !== undefined && confirm(differs.choice, (context) => policy.evaluate(context, primitive) !== decideWithout(info, applicable, context, primitive))) state.matters = true;
    }
    const confirmedExact = inexact.length === 0;
    if (!confirmedExact && exact) unknown.push(...inexact);
    for (const info of applicable) if (!confirmedExact) ruleState[info.index]!.exact = false;
    perPrimitive.push({ primitive, exact: confirmedExact, visible, hidden });
  }

  function holdsAt(node: Node, context: RequestContext, primitive: PrimitiveMetadata): boolean {
    return node.kind === 'requirements' ? requirements.evaluate(context, primitive) : probe(node.info).evaluate(context, primitive);
  }

  rules.forEach((info, index) => {
    const state = ruleState[index]!;
    const { id } = info.rule;
    if (state.applies === 0) {
      findings.push({ code: 'rule-never-applies', severity: 'warning', ruleId: id, message: `rule "${id}" applies to no primitive (its appliesTo matches none)` });
      return;
    }
    if (!state.exact) return;
    if (info.rule.when !== undefined && !state.everTrue) {
      findings.push({ code: 'condition-always-false', severity: 'error', ruleId: id, message: `rule "${id}": its condition is false for every context, so the rule never applies` });
      return;
    }
    if (info.rule.when !== undefined && !state.everFalse) {
      findings.push({ code: 'condition-always-true', severity: 'warning', ruleId: id, message: `rule "${id}": its condition is true for every context (the "when" says nothing)` });
    }
    if (!state.matters) findings.push({ code: 'rule-shadowed', severity: 'warning', ruleId: id, message: `rule "${id}" changes no decision: without it every primitive is decided the same for every context` });
  });
  for (const { primitive, exact, visible, hidden } of perPrimitive) {
    if (!exact) continue;
    if (!visible) findings.push({ code: 'primitive-never-visible', severity: 'warning', primitive, message: `${describe(primitive)} is hidden for every context` });
    // Only rules that single primitives out (by name, group or tag), not every tool of a kind.
    const denyRules = analysis.applicable(primitive).filter((info) => info.rule.effect === 'deny' && namesPrimitives(info.rule));
    if (!hidden && denyRules.length > 0) {
      const names = denyRules.map((info) => `"${info.rule.id}"`).join(', ');
      findings.push({ code: 'deny-never-hides', severity: 'error', primitive, message: `${describe(primitive)} is visible for every context although deny rule${denyRules.length === 1 ? '' : 's'} ${names} ${denyRules.length === 1 ? 'names' : 'name'} it` });
    }
  }
  return { findings, unknown: [...new Set(unknown)] };
}

function contextAt(analysis: Analysis, space: Space, choice: readonly number[], primitive: PrimitiveMetadata): RequestContext {
  let found: RequestContext | undefined;
  // The component walk builds contexts exactly as the enumeration does; reuse it for one choice.
  const positions = space.paths.map((_, index) => index);
  const fixed: Space = { ...space, values: space.values.map((values, index) => [values[choice[index]!]]), combinations: 1 };
  analysis.forEachInComponent(fixed, positions, primitive, (context) => {
    found = context;
    return true;
  });
  return found!;
}

import type { RequestContext } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { CompilePolicyOptions } from '../policy/compile-policy.js';
import type { NormalizedPolicyDocument } from '../policy/schema.js';
import type { Analysis, LintFinding, RuleInfo, Space } from './analysis-types.js';
import { answersOf, componentsOf, createProbes, describe, fold, namesPrimitives, stepFlags, type Component, type Flags } from './components.js';

// Lint over every context. A decision is the requirement check, then any deny rule, then any
// allow rule, then the default; so which rules hold is all that matters. Rules that share no
// context path are independent: each group of them (a component) is enumerated on its own paths,
// keeping one context per combination of answers, and the combinations of the groups are joined
// by a small fold over (requirements met, some deny holds, some allow holds). Every answer lint
// gives is then confirmed on a concrete context by the real policies.

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
  const { probe, requirements, holdsAt } = createProbes(document, compileOptions);
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
      if (combinations > analysis.maxCombinations)
        inexact.push(`${describe(primitive)}: ${combinations} class combinations of one group of rules exceed the bound of ${analysis.maxCombinations}`);
      return { nodes: members, positions, answers: answersOf(analysis, space, members, positions, nodes, primitive, holdsAt) };
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
    const nodeStep = (flags: Flags, member: number, holds: boolean, subject?: RuleInfo): Flags => stepFlags(nodes, flags, member, holds, subject);
    const allowed = (flags: Flags) => flags.met && !flags.deny && (flags.allow || allowByDefault);
    const states = fold(
      components,
      { met: true, deny: constantDeny, allow: constantAllow, subject: false },
      (flags, member, holds) => nodeStep(flags, member, holds),
      space.paths.length,
    );
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
      if (differs !== undefined && confirm(differs.choice, (context) => policy.evaluate(context, primitive) !== decideWithout(info, applicable, context, primitive)))
        state.matters = true;
    }
    const confirmedExact = inexact.length === 0;
    if (!confirmedExact && exact) unknown.push(...inexact);
    for (const info of applicable) if (!confirmedExact) ruleState[info.index]!.exact = false;
    perPrimitive.push({ primitive, exact: confirmedExact, visible, hidden });
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
      findings.push({
        code: 'condition-always-false',
        severity: 'error',
        ruleId: id,
        message: `rule "${id}": its condition is false for every context, so the rule never applies`,
      });
      return;
    }
    if (info.rule.when !== undefined && !state.everFalse) {
      findings.push({
        code: 'condition-always-true',
        severity: 'warning',
        ruleId: id,
        message: `rule "${id}": its condition is true for every context (the "when" says nothing)`,
      });
    }
    if (!state.matters)
      findings.push({
        code: 'rule-shadowed',
        severity: 'warning',
        ruleId: id,
        message: `rule "${id}" changes no decision: without it every primitive is decided the same for every context`,
      });
  });
  for (const { primitive, exact, visible, hidden } of perPrimitive) {
    if (!exact) continue;
    if (!visible) findings.push({ code: 'primitive-never-visible', severity: 'warning', primitive, message: `${describe(primitive)} is hidden for every context` });
    // Only rules that single primitives out (by name, group or tag), not every tool of a kind.
    const denyRules = analysis.applicable(primitive).filter((info) => info.rule.effect === 'deny' && namesPrimitives(info.rule));
    if (!hidden && denyRules.length > 0) {
      const names = denyRules.map((info) => `"${info.rule.id}"`).join(', ');
      findings.push({
        code: 'deny-never-hides',
        severity: 'error',
        primitive,
        message: `${describe(primitive)} is visible for every context although deny rule${denyRules.length === 1 ? '' : 's'} ${names} ${denyRules.length === 1 ? 'names' : 'name'} it`,
      });
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

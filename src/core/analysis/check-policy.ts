import { createRequestContext, type RequestContext, type RequestContextInput } from '../context.js';
import { listMethodOf, type PrimitiveMetadata } from '../primitive-metadata.js';
import { toPrimitiveMetadata } from '../policy/primitive-input.js';
import { compilePolicy, type CompilePolicyOptions } from '../policy/compile-policy.js';
import { compileAppliesTo } from '../policy/rule-plan.js';
import { policyDocumentSchema, type NormalizedPolicyDocument } from '../policy/schema.js';
import type { Decision, Policy } from '../policy/types.js';
import { collectAtoms } from './atoms.js';
import { emptyAtoms, mergeAtoms, requirementAtomsOf, type ConditionAtoms } from './condition-atoms.js';
import { compileInvariants, outputRoots, type CompiledInvariant, type Invariant } from './invariants.js';
import { answersOf, componentsOf, createProbes, describe, fold, stepFlags } from './components.js';
import { lintPolicy } from './lint.js';
import type { Analysis, InvariantVerdict, Node, PolicyCheck, RuleInfo, Space, VerdictStatus } from './analysis-types.js';
import { assignmentOf, buildSpace, contextInputOf, createClassCache } from './space.js';

export type { Counterexample, InvariantVerdict, LintCode, LintFinding, PolicyCheck, VerdictStatus } from './analysis-types.js';

// `mcp-gate check`: properties of a policy over every context. Per primitive, the context paths
// that the applicable rules, the primitive's requirements and the invariant read are each cut
// into classes (atoms.ts, value-classes.ts); every combination of one representative per class
// is decided by the real compiled policy, so a verdict and the engine cannot disagree. A
// condition the analysis cannot model makes what it touches unknown, never proven.

export interface CheckPolicyOptions {
  readonly invariants?: readonly Invariant[];
  /** Passed to compilePolicy (the analysis compiles the document, and variants of it for lint). */
  readonly compile?: CompilePolicyOptions;
  /** Most class combinations decided for one primitive and one question (default 100,000). */
  readonly maxCombinations?: number;
}

const defaultMaxCombinations = 100_000;

/** Checks invariants and lints a policy document over every context, for these primitives. */
export function checkPolicy(document: unknown, primitives: readonly PrimitiveMetadata[], options: CheckPolicyOptions = {}): PolicyCheck {
  const compileOptions = options.compile ?? {};
  const policy = compilePolicy(document, compileOptions);
  const normalized = policyDocumentSchema.parse(document);
  const metadata = primitives.map((primitive) => toPrimitiveMetadata(primitive));
  const invariants = compileInvariants([...(options.invariants ?? []), ...invariantsOf(document)]);
  const analysis = createAnalysis(policy, normalized, options.maxCombinations ?? defaultMaxCombinations, compileOptions);
  const verdicts = invariants.map((invariant) => analysis.checkInvariant(invariant, metadata));
  const { findings, unknown } = lintPolicy(analysis, normalized, metadata, document, compileOptions);
  const passed = verdicts.every((verdict) => verdict.status === 'proven') && !findings.some((finding) => finding.severity === 'error');
  return { invariants: verdicts, lint: findings, lintUnknown: unknown, passed };
}

/** The `invariants` a policy document carries itself. */
export function invariantsOf(document: unknown): Invariant[] {
  const invariants = (document as { invariants?: unknown } | null)?.invariants;
  return Array.isArray(invariants) ? (invariants as Invariant[]) : [];
}

function createAnalysis(policy: Policy, document: NormalizedPolicyDocument, maxCombinations: number, compileOptions: CompilePolicyOptions): Analysis {
  const probes = createProbes(document, compileOptions);
  const rules: RuleInfo[] = document.rules.map((rule, index) => ({ index, rule, appliesTo: compileAppliesTo(rule.appliesTo) }));
  const ruleAtoms = new Map<string, ConditionAtoms>();

  const applicableRules = new WeakMap<PrimitiveMetadata, RuleInfo[]>();
  function applicable(primitive: PrimitiveMetadata): RuleInfo[] {
    let found = applicableRules.get(primitive);
    if (found === undefined) applicableRules.set(primitive, (found = rules.filter((info) => info.appliesTo(primitive))));
    return found;
  }
  // Paths are tested alike by many primitives: their classes are computed once per set of atoms.
  const classesOf = createClassCache();
  const primitiveReaders = rules.map((info) => info.rule.when !== undefined && readsPrimitive(info.rule.when));

  function atomsOf(info: RuleInfo, primitive: PrimitiveMetadata): ConditionAtoms {
    if (info.rule.when === undefined) return emptyAtoms();
    // Conditions that read no primitive field have the same atoms for every primitive.
    const key = primitiveReaders[info.index] ? `${info.index}\u0000${JSON.stringify(primitive)}` : String(info.index);
    let atoms = ruleAtoms.get(key);
    if (atoms === undefined) ruleAtoms.set(key, (atoms = collectAtoms(info.rule.when, primitive, `rule "${info.rule.id}"`)));
    return atoms;
  }

  function requirementAtoms(primitive: PrimitiveMetadata): ConditionAtoms {
    return document.enforceRequirements ? requirementAtomsOf(primitive) : emptyAtoms();
  }

  /** The requirement check and each applicable rule with a condition, as nodes of what they read. */
  function nodesFor(primitive: PrimitiveMetadata): Node[] {
    const nodes: Node[] = [{ kind: 'requirements', atoms: requirementAtoms(primitive) }];
    for (const info of applicable(primitive)) if (info.rule.when !== undefined) nodes.push({ kind: 'rule', info, atoms: atomsOf(info, primitive) });
    return nodes;
  }

  function spaceFor(primitive: PrimitiveMetadata, extra?: ConditionAtoms): Space {
    const all = requirementAtoms(primitive);
    for (const info of applicable(primitive)) mergeAtoms(all, atomsOf(info, primitive));
    if (extra !== undefined) mergeAtoms(all, extra);
    return spaceOf(primitive, all);
  }

  function spaceOf(primitive: PrimitiveMetadata, all: ConditionAtoms): Space {
    return buildSpace(all, describe(primitive), classesOf);
  }

  function contextInput(space: Space, choice: readonly number[]): RequestContextInput {
    return contextInputOf(assignmentOf(space, choice));
  }

  function forEachContext(space: Space, primitive: PrimitiveMetadata, visit: (context: RequestContext, choice: readonly number[]) => boolean): number {
    const choice = space.paths.map(() => 0);
    const limit = Math.min(space.combinations, maxCombinations);
    let count = 0;
    while (count < limit) {
      count++;
      const input = contextInput(space, choice);
      // Not read: the method a list of this kind is decided for (as `mcp-gate explain` does).
      if (!space.paths.includes('request.method')) (input.request as { method?: string }).method = listMethodOf(primitive.kind);
      if (visit(createRequestContext(input), choice)) break;
      let position = choice.length - 1;
      while (position >= 0 && ++choice[position]! === space.values[position]!.length) choice[position--] = 0;
      if (position < 0) break;
    }
    return count;
  }

  /** Like forEachContext over the paths at `positions` only; every other path keeps its cheapest class. */
  function forEachInComponent(
    space: Space,
    positions: readonly number[],
    primitive: PrimitiveMetadata,
    visit: (context: RequestContext, choice: readonly number[]) => boolean,
    base?: readonly number[],
  ): number {
    const sub: Space = {
      paths: positions.map((position) => space.paths[position]!),
      values: positions.map((position) => space.values[position]!),
      inexact: [],
      combinations: positions.reduce((product, position) => product * space.values[position]!.length, 1),
    };
    const choice = base === undefined ? space.paths.map(() => 0) : [...base];
    return forEachContext(sub, primitive, (_context, subChoice) => {
      positions.forEach((position, index) => (choice[position] = subChoice[index]!));
      return visit(createRequestContext(evaluationContext(space, choice, primitive)), choice);
    });
  }

  function checkInvariant(invariant: CompiledInvariant, primitives: readonly PrimitiveMetadata[]): InvariantVerdict {
    const reasons: string[] = [];
    let contexts = 0;
    for (const primitive of primitives) {
      const extra = collectAtoms(invariant.condition, primitive, `invariant "${invariant.id}"`, { outputRoots });
      // Most primitives are not what an invariant is about (its condition is false for them
      // whatever is decided): proven on the invariant's own classes, without deciding anything.
      if (holdsWhateverDecided(invariant, extra, primitive)) continue;
      const whole = spaceFor(primitive, extra);
      let found: number[] | undefined;
      const visit = (context: RequestContext, choice: readonly number[]) => {
        if (!invariant.violates(context, primitive, policy.explain(context, primitive))) return false;
        found = [...choice];
        return true;
      };
      // Which rule decided is lost when independent rules are folded into flags: an invariant
      // that reads `decision` gets every combination.
      const split = extra.outputs.has('decision') ? undefined : splitByInvariant(whole, extra, primitive);
      const space = split === undefined ? withBound(whole, primitive, maxCombinations) : split.space;
      if (split === undefined) contexts += forEachContext(space, primitive, visit);
      else {
        for (const base of split.bases) {
          contexts += forEachInComponent(space, split.positions, primitive, visit, base);
          if (found !== undefined) break;
        }
      }
      if (found !== undefined) {
        // Classes are listed cheapest first (absent, then shortest), so the first combination
        // found (lexicographically least) is already minimal, path by path.
        const choice = found;
        const context = evaluationContext(space, choice, primitive);
        const counterexample = { primitive, context: contextInput(space, choice), decision: policy.explain(createRequestContext(context), primitive) };
        return { id: invariant.id, description: invariant.description, mode: invariant.mode, status: 'refuted', counterexample, reasons: [], contexts };
      }
      reasons.push(...space.inexact);
    }
    const status: VerdictStatus = reasons.length === 0 ? 'proven' : 'unknown';
    return { id: invariant.id, description: invariant.description, mode: invariant.mode, status, reasons: [...new Set(reasons)], contexts };
  }

  /**
   * The paths the invariant shares with rules (transitively) are enumerated; every other group
   * of rules only matters through the flags it sets, so one choice per reachable combination of
   * flags stands for all of its classes (components.ts). Returns the bases (choices of the other
   * groups) and the positions enumerated under each.
   */
  function splitByInvariant(whole: Space, extra: ConditionAtoms, primitive: PrimitiveMetadata): { space: Space; positions: number[]; bases: number[][] } {
    const nodes = nodesFor(primitive);
    const groups = componentsOf([...nodes, { atoms: extra }], whole);
    const own = groups.find((group) => group.nodes.includes(nodes.length))!;
    const inexact = [...whole.inexact];
    const combinations = own.positions.reduce((product, position) => product * whole.values[position]!.length, 1);
    if (combinations > maxCombinations) inexact.push(`${describe(primitive)}: ${combinations} class combinations exceed the bound of ${maxCombinations}`);
    const others = groups
      .filter((group) => group !== own)
      .map((group) => {
        const size = group.positions.reduce((product, position) => product * whole.values[position]!.length, 1);
        if (size > maxCombinations) inexact.push(`${describe(primitive)}: ${size} class combinations of one group of rules exceed the bound of ${maxCombinations}`);
        return { ...group, answers: answersOf(analysis, whole, group.nodes, group.positions, nodes, primitive, probes.holdsAt) };
      });
    const applicableRules = applicable(primitive);
    const start = {
      met: true,
      deny: applicableRules.some((info) => info.rule.when === undefined && info.rule.effect === 'deny'),
      allow: applicableRules.some((info) => info.rule.when === undefined && info.rule.effect === 'allow'),
      subject: false,
    };
    const bases = fold(others, start, (flags, member, holds) => stepFlags(nodes, flags, member, holds), whole.paths.length).map((state) => state.choice);
    return { space: { ...whole, inexact }, positions: own.positions, bases };
  }

  /**
   * Where the policy cannot be modelled for a primitive, the invariant may still hold for every
   * decision the policy could make (its condition may not even depend on the decision): a sound
   * proof for this primitive, over the invariant's own classes.
   */
  function holdsWhateverDecided(invariant: CompiledInvariant, atoms: ConditionAtoms, primitive: PrimitiveMetadata): boolean {
    const space = withBound(
      spaceOf(primitive, { ...atoms, paths: new Map(atoms.paths), unmodelled: [...atoms.unmodelled], outputs: new Set(atoms.outputs), opaque: new Map(atoms.opaque) }),
      primitive,
      maxCombinations,
    );
    if (space.inexact.length > 0) return false;
    const decisions = possibleDecisions(primitive);
    let broken = false;
    forEachContext(space, primitive, (context) => (broken = decisions.some((decision) => invariant.violates(context, primitive, decision))));
    return !broken;
  }

  function possibleDecisions(primitive: PrimitiveMetadata): Decision[] {
    const decisions: Decision[] = [
      { allowed: true, reason: 'default', message: '' },
      { allowed: false, reason: 'default', message: '' },
      { allowed: false, reason: 'requirement', message: '' },
      { allowed: false, reason: 'error', message: '' },
    ];
    for (const info of applicable(primitive)) {
      decisions.push({ allowed: info.rule.effect === 'allow', reason: 'rule', ruleId: info.rule.id, message: '' });
      decisions.push({ allowed: false, reason: 'error', ruleId: info.rule.id, message: '' });
    }
    return decisions;
  }

  function evaluationContext(space: Space, choice: readonly number[], primitive: PrimitiveMetadata): RequestContextInput {
    const input = contextInput(space, choice);
    if (!space.paths.includes('request.method')) (input.request as { method?: string }).method = listMethodOf(primitive.kind);
    return input;
  }

  const analysis: Analysis = { policy, rules, applicable, nodesFor, spaceFor, forEachContext, forEachInComponent, contextInput, maxCombinations, checkInvariant };
  return analysis;
}

/** A space whose combinations are all decided, or one that says it cannot be. */
export function withBound(space: Space, primitive: PrimitiveMetadata, maxCombinations: number): Space {
  if (space.combinations <= maxCombinations) return space;
  return { ...space, inexact: [...space.inexact, `${describe(primitive)}: ${space.combinations} class combinations exceed the bound of ${maxCombinations}`] };
}

function readsPrimitive(condition: unknown): boolean {
  return /"(primitive|tool)(\.|")/.test(JSON.stringify(condition));
}

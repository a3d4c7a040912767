import type { RequestContext, RequestContextInput } from '../context.js';
import type { PrimitiveMetadata } from '../primitive-metadata.js';
import type { PolicyRule } from '../policy/schema.js';
import type { Decision, Policy } from '../policy/types.js';
import type { ConditionAtoms } from './condition-atoms.js';
import type { CompiledInvariant } from './invariants.js';

// The types the analysis's modules share (check-policy, components, lint), below all of them so
// that no two import each other (test/core/import-cycles.test.ts).

export type VerdictStatus = 'proven' | 'refuted' | 'unknown';

export interface Counterexample {
  readonly primitive: PrimitiveMetadata;
  /** A RequestContextInput `createRequestContext` (and `mcp-gate explain --context`) accepts. */
  readonly context: RequestContextInput;
  readonly decision: Decision;
}

export interface InvariantVerdict {
  readonly id: string;
  readonly description?: string | undefined;
  readonly mode: 'never' | 'always';
  readonly status: VerdictStatus;
  readonly counterexample?: Counterexample | undefined;
  /** Why the verdict is unknown: each names the primitive and what could not be modelled. */
  readonly reasons: readonly string[];
  /** Contexts decided (class combinations, over all primitives). */
  readonly contexts: number;
}

export type LintCode = 'rule-never-applies' | 'condition-always-false' | 'condition-always-true' | 'rule-shadowed' | 'primitive-never-visible' | 'deny-never-hides';

export interface LintFinding {
  readonly code: LintCode;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly ruleId?: string | undefined;
  readonly primitive?: PrimitiveMetadata | undefined;
}

export interface PolicyCheck {
  readonly invariants: readonly InvariantVerdict[];
  readonly lint: readonly LintFinding[];
  /** What lint could not decide exactly, with the reason (one line per primitive). */
  readonly lintUnknown: readonly string[];
  /** True when every invariant is proven, nothing is unknown and lint found no error. */
  readonly passed: boolean;
}

export interface RuleInfo {
  readonly index: number;
  readonly rule: PolicyRule;
  readonly appliesTo: (primitive: PrimitiveMetadata) => boolean;
}

/** What one part of a decision reads: the requirement check or one rule's condition. */
export type Node = { readonly kind: 'requirements'; readonly atoms: ConditionAtoms } | { readonly kind: 'rule'; readonly info: RuleInfo; readonly atoms: ConditionAtoms };

/** The paths one question reads for one primitive, their classes, and why it may not be exact. */
export interface Space {
  readonly paths: readonly string[];
  readonly values: ReadonlyArray<readonly unknown[]>;
  readonly inexact: readonly string[];
  readonly combinations: number;
}

export interface Analysis {
  readonly policy: Policy;
  readonly rules: readonly RuleInfo[];
  applicable(primitive: PrimitiveMetadata): RuleInfo[];
  /** The atoms of the applicable rules and the requirements (plus `extra`), as a space of class combinations. */
  nodesFor(primitive: PrimitiveMetadata): Node[];
  spaceFor(primitive: PrimitiveMetadata, extra?: ConditionAtoms): Space;
  forEachInComponent(
    space: Space,
    positions: readonly number[],
    primitive: PrimitiveMetadata,
    visit: (context: RequestContext, choice: readonly number[]) => boolean,
    base?: readonly number[],
  ): number;
  /** Every combination of the space as a context, in order; stops when `visit` returns true. */
  forEachContext(space: Space, primitive: PrimitiveMetadata, visit: (context: RequestContext, choice: readonly number[]) => boolean): number;
  contextInput(space: Space, choice: readonly number[]): RequestContextInput;
  readonly maxCombinations: number;
  checkInvariant(invariant: CompiledInvariant, primitives: readonly PrimitiveMetadata[]): InvariantVerdict;
}

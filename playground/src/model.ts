// The playground's model, free of the DOM: what the matrix holds, how it is evaluated, compared
// with a baseline policy, covered, and exported as a cases file `mcp-gate test` runs.
import { createRequestContext, type RequestContext } from '../../src/core/context.js';
import { createPrimitiveMetadata, type PrimitiveAnnotation, type PrimitiveMetadata } from '../../src/core/primitive-metadata.js';
import { PolicyCompileError, type PolicyIssue } from '../../src/core/errors.js';
import { createDecisionTracer, type DecisionTracer } from '../../src/core/policy/decision-trace.js';
import type { Decision, Policy } from '../../src/core/policy/types.js';
import { clientProfiles, profileContext, type ClientProfile } from '../../src/profiles/client-profiles.js';

/** A primitive as a manifest writes it (policies/demo.manifest.json, `mcp-gate manifest`). */
export interface ManifestPrimitive {
  readonly kind: PrimitiveMetadata['kind'];
  readonly name: string;
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly version?: string;
  readonly groups?: readonly string[];
  readonly tags?: readonly string[];
  readonly requires?: { readonly capabilities?: readonly string[]; readonly headers?: Readonly<Record<string, string>> };
  readonly endpoints?: readonly string[];
}

export interface HeaderSet {
  readonly headers: Readonly<Record<string, string>>;
}

/** Everything a share link carries. */
export interface PlaygroundState {
  /** The edited policy, as text (it may not parse). */
  readonly policy: string;
  /** What the edited policy is compared with: the file on disk, or another policy. */
  readonly baseline: string;
  /** The file name the export's `policy` field points at. */
  readonly policyFile: string;
  readonly primitives: readonly ManifestPrimitive[];
  readonly headerSets: readonly HeaderSet[];
  readonly endpoints: readonly string[];
  readonly scopeSets: readonly (readonly string[])[];
}

/** One column: a real client, crossed with one header set, endpoint and scope set. */
export interface MatrixColumn {
  readonly profile: ClientProfile;
  readonly headers: Readonly<Record<string, string>>;
  readonly endpoint: string;
  readonly scopes: readonly string[];
  readonly context: RequestContext;
}

export function describeHeaders(headers: Readonly<Record<string, string>>): string {
  const entries = Object.entries(headers);
  return entries.length === 0 ? 'no headers' : entries.map(([name, value]) => `${name}: ${value}`).join(', ');
}

export function describeScopes(scopes: readonly string[]): string {
  return scopes.length === 0 ? 'no scopes' : `scopes ${scopes.join(' ')}`;
}

export function describeColumn(column: MatrixColumn): string {
  return `${column.profile.id}, ${describeHeaders(column.headers)}, ${column.endpoint}, ${describeScopes(column.scopes)}`;
}

export function describePrimitive(primitive: PrimitiveMetadata): string {
  return `${primitive.kind} ${primitive.name}${primitive.version === undefined ? '' : `@${primitive.version}`}`;
}

/**
 * Every profile crossed with the header sets, endpoints and scope sets. Each context is built as a
 * cases file entry `{profile, request, auth}` builds it (src/cli/cases.ts, buildCaseContext), so the
 * exported cases decide exactly as the cells did.
 */
export function buildColumns(state: Pick<PlaygroundState, 'headerSets' | 'endpoints' | 'scopeSets'>, profiles: readonly ClientProfile[] = clientProfiles): MatrixColumn[] {
  const columns: MatrixColumn[] = [];
  for (const profile of profiles) {
    const base = profileContext(profile);
    for (const { headers } of state.headerSets) {
      for (const endpoint of state.endpoints) {
        for (const scopes of state.scopeSets) {
          const context = createRequestContext({ request: { ...base.request, endpoint, headers }, client: { ...base.client }, auth: { scopes: [...scopes] } });
          columns.push({ profile, headers, endpoint, scopes, context });
        }
      }
    }
  }
  return columns;
}

/** As src/cli/manifest.ts's toMetadata, which the page cannot import (its module reads files). */
export function toMetadata(primitive: ManifestPrimitive): PrimitiveMetadata {
  const { kind, name, uri, uriTemplate, ...annotation } = primitive;
  return createPrimitiveMetadata(kind, name, annotation as PrimitiveAnnotation, {
    ...(uri === undefined ? {} : { uri }),
    ...(uriTemplate === undefined ? {} : { uriTemplate }),
  });
}

export type Compiled =
  | { readonly ok: true; readonly tracer: DecisionTracer; readonly policy: Policy; readonly warnings: readonly PolicyIssue[] }
  | { readonly ok: false; readonly issues: readonly PolicyIssue[]; readonly syntaxError?: { readonly message: string; readonly offset: number } };

/** Parses and compiles policy text; never throws. */
export function compilePolicyText(text: string): Compiled {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? text.length);
    return { ok: false, issues: [{ code: 'invalid_document', path: '', message: `invalid JSON: ${message}` }], syntaxError: { message, offset } };
  }
  try {
    const tracer = createDecisionTracer(document);
    return { ok: true, tracer, policy: tracer.policy, warnings: tracer.policy.warnings ?? [] };
  } catch (error) {
    if (error instanceof PolicyCompileError) return { ok: false, issues: error.issues };
    return { ok: false, issues: [{ code: 'invalid_document', path: '', message: error instanceof Error ? error.message : String(error) }] };
  }
}

/**
 * Visibility of every cell, row-major (`row * columns + column`): 1 visible, 0 hidden. One
 * `forContext` per column, so what a condition reads only from the request is evaluated once per
 * column, as a list request does.
 */
export function evaluateVisibility(policy: Policy, primitives: readonly PrimitiveMetadata[], columns: readonly MatrixColumn[]): Uint8Array {
  const cells = new Uint8Array(primitives.length * columns.length);
  const width = columns.length;
  for (let column = 0; column < width; column++) {
    const decide = policy.forContext(columns[column]!.context);
    for (let row = 0; row < primitives.length; row++) cells[row * width + column] = decide(primitives[row]!) ? 1 : 0;
  }
  return cells;
}

/** Decisions (with the deciding rule) are computed per cell when asked, and kept until the policy changes. */
export class DecisionTable {
  private readonly decisions = new Map<number, Decision>();
  constructor(
    readonly policy: Policy,
    private readonly primitives: readonly PrimitiveMetadata[],
    private readonly columns: readonly MatrixColumn[],
  ) {}

  decision(row: number, column: number): Decision {
    const index = row * this.columns.length + column;
    let decision = this.decisions.get(index);
    if (decision === undefined) {
      decision = this.policy.explain(this.columns[column]!.context, this.primitives[row]!);
      this.decisions.set(index, decision);
    }
    return decision;
  }
}

/** `canary-needs-header`, `requirement: sampling`, `default`: what a cell shows as its reason. */
export function describeDecider(decision: Decision): string {
  if (decision.reason === 'rule') return decision.ruleId ?? 'rule';
  if (decision.reason === 'requirement') {
    const unmet = decision.unmet;
    if (unmet?.kind === 'capability') return `needs ${unmet.capability}`;
    if (unmet?.kind === 'header') return `needs ${unmet.header}`;
    if (unmet?.kind === 'endpoint') return 'endpoint';
    return 'requirement';
  }
  return decision.reason === 'error' ? `error${decision.ruleId === undefined ? '' : ` ${decision.ruleId}`}` : 'default';
}

export interface MatrixDiff {
  /** Per cell: 0 unchanged, 1 gains (now visible), 2 loses (now hidden). */
  readonly change: Uint8Array;
  readonly gained: number;
  readonly lost: number;
  /** Per primitive row: contexts that gain it and that lose it (only rows with changes). */
  readonly byPrimitive: ReadonlyArray<{ readonly row: number; readonly gained: number; readonly lost: number }>;
  /** Per client profile: cells gained and lost. */
  readonly byProfile: ReadonlyArray<{ readonly profile: string; readonly gained: number; readonly lost: number }>;
}

export function diffVisibility(before: Uint8Array, after: Uint8Array, columns: readonly MatrixColumn[]): MatrixDiff {
  const width = columns.length;
  const change = new Uint8Array(after.length);
  let gained = 0;
  let lost = 0;
  const rows = new Map<number, { row: number; gained: number; lost: number }>();
  const profiles = new Map<string, { profile: string; gained: number; lost: number }>();
  for (let index = 0; index < after.length; index++) {
    if (before[index] === after[index]) continue;
    const gains = after[index] === 1;
    change[index] = gains ? 1 : 2;
    const row = Math.floor(index / width);
    const profile = columns[index % width]!.profile.id;
    const rowCount = rows.get(row) ?? rows.set(row, { row, gained: 0, lost: 0 }).get(row)!;
    const profileCount = profiles.get(profile) ?? profiles.set(profile, { profile, gained: 0, lost: 0 }).get(profile)!;
    if (gains) {
      gained++;
      rowCount.gained++;
      profileCount.gained++;
    } else {
      lost++;
      rowCount.lost++;
      profileCount.lost++;
    }
  }
  return { change, gained, lost, byPrimitive: [...rows.values()], byProfile: [...profiles.values()] };
}

/** How many cells each rule decided; rules that decided none are dead weight in this matrix. */
export function countDeciders(table: DecisionTable, rows: number, width: number, from = 0, to = rows * width, counts = new Map<string, number>()): Map<string, number> {
  for (let index = from; index < to; index++) {
    const decision = table.decision(Math.floor(index / width), index % width);
    if (decision.reason === 'rule' && decision.ruleId !== undefined) counts.set(decision.ruleId, (counts.get(decision.ruleId) ?? 0) + 1);
  }
  return counts;
}

/** The matrix as a cases file: one case per cell, its context written as a cases file writes it. */
export function toCasesFile(state: PlaygroundState, table: DecisionTable, primitives: readonly PrimitiveMetadata[], columns: readonly MatrixColumn[]): unknown {
  const cases: unknown[] = [];
  primitives.forEach((primitive, row) => {
    columns.forEach((column, index) => {
      const decision = table.decision(row, index);
      const expect: Record<string, unknown> = { allowed: decision.allowed, reason: decision.reason };
      if (decision.ruleId !== undefined) expect.ruleId = decision.ruleId;
      cases.push({
        name: `${describeColumn(column)}: ${describePrimitive(primitive)}`,
        context: { profile: column.profile.id, request: { endpoint: column.endpoint, headers: { ...column.headers } }, auth: { scopes: [...column.scopes] } },
        primitive: state.primitives[row],
        expect,
      });
    });
  });
  return { description: 'Exported from the mcp-gate playground: every cell of its matrix.', policy: `./${state.policyFile}`, cases };
}

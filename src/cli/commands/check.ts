import { z } from 'zod';
import { checkPolicy, invariantsOf, type InvariantVerdict, type LintFinding, type PolicyCheck } from '../../core/analysis/check-policy.js';
import { describe as describePrimitive } from '../../core/analysis/components.js';
import { compileInvariants, invariantSchema, type Invariant } from '../../core/analysis/invariants.js';
import type { PrimitiveMetadata } from '../../core/primitive-metadata.js';
import { PolicyCompileError } from '../../core/errors.js';
import { toPolicyIssues } from '../../core/policy/schema.js';
import { describeDecision } from '../cases.js';
import type { Command } from '../command.js';
import { writeLines } from '../command.js';
import { displayPath, exitCodes, loadAll, readJson, resolvePath, UsageError, type CliIo } from '../io.js';
import { loadPrimitives, primitiveSourceOptionSpecs, toManifestPrimitive } from '../manifest.js';
import { upstreamSourceUsage } from '../upstream-source.js';
import { checkPolicyDocument, IssuesInputError } from '../policy-file.js';

const command = 'mcp-gate check';

/** An invariants file: `{"invariants": […]}` (or the bare list). */
const invariantsFileSchema = z.union([
  z.strictObject({ $schema: z.string().optional(), description: z.string().optional(), invariants: z.array(invariantSchema) }),
  z.array(invariantSchema),
]);

export const checkCommand: Command = {
  name: 'check',
  summary: 'prove invariants of a policy for every possible request, and lint it',
  usage: `mcp-gate check --policy FILE (--manifest FILE | --server MODULE | ${upstreamSourceUsage}) [--overlay FILE] [--invariants FILE] [--json]`,
  description: [
    'Checks the policy over every request context, not just the ones written down: the values of each',
    'context path the rules read fall into finitely many classes, and one request per combination of',
    'classes is decided by the policy itself (docs/check.md).',
    'Each invariant (from --invariants and the policy\'s own "invariants") is proven, refuted with a',
    'counterexample that "mcp-gate explain --context" confirms, or unknown with the reason (fractional',
    'rollouts and arithmetic on context values are not modelled). Lint reports rules that never apply,',
    'conditions that are always true or false, rules that change no decision, primitives no request',
    'sees and primitives a deny rule names but never hides.',
    'Exit code: 0 when every invariant is proven and lint found no error, 1 otherwise.',
  ].join('\n'),
  options: {
    policy: { type: 'string', value: 'FILE', description: 'the policy document (required)' },
    manifest: { type: 'string', value: 'FILE', description: 'the primitives, as JSON {"primitives": […]} (or --server)' },
    ...primitiveSourceOptionSpecs,
    invariants: { type: 'string', value: 'FILE', description: 'invariants as JSON {"invariants": [{"id", "never" | "always"}]}' },
    json: { type: 'boolean', description: 'print verdicts, counterexamples and lint as JSON' },
  },
  async execute(args, io) {
    if (args.positionals.length > 0) throw new UsageError(`${command}: unexpected argument "${args.positionals[0]}"; see "${command} --help"`);
    const policyPath = args.string('policy');
    if (policyPath === undefined) throw new UsageError(`${command}: missing --policy FILE; see "${command} --help"`);
    const invariantsPath = args.string('invariants');
    const [primitives, policyFile, invariants] = await loadAll(
      loadPrimitives(io, args, command),
      loadPolicyDocument(io, policyPath),
      invariantsPath === undefined ? Promise.resolve([]) : loadInvariants(io, invariantsPath),
    );
    const result = checkPolicy(policyFile.document, primitives, { invariants });
    const source = { policy: policyFile.name, primitives: describeSource(args.string('manifest'), args.string('server'), args.string('export')) };
    if (args.flag('json')) writeLines(io.stdout, JSON.stringify(toJson(result, policyFile, primitives.length), null, 2));
    else writeLines(io.stdout, formatCheck(result, policyFile, primitives.length, source));
    return result.passed ? exitCodes.ok : exitCodes.failed;
  },
};

/** A policy document read for analysis: its display name, the JSON as written, and its revision. */
export interface PolicyFile {
  readonly name: string;
  readonly document: unknown;
  readonly revision: string;
}

/** Reads, compiles and checks a policy file, its invariants included; problems are `file: path: message` errors. */
export async function loadPolicyDocument(io: CliIo, path: string): Promise<PolicyFile> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const document = await readJson(io, absolutePath);
  const { policy } = checkPolicyDocument(document, name);
  checkDocumentInvariants(document, name);
  return { name, document, revision: policy.revision };
}

/** Compiles the invariants a policy document carries; their problems are `file: invariants[i]…: message` lines. */
export function checkDocumentInvariants(document: unknown, name: string): void {
  try {
    compileInvariants(invariantsOf(document));
  } catch (error) {
    if (error instanceof PolicyCompileError) throw new IssuesInputError(name, error.issues);
    throw error;
  }
}

/**
 * The invariants a policy document carries, checked over every context for these primitives (for
 * `mcp-gate test`, over the primitives of a cases file). Empty when the document has none.
 */
export function checkDocumentInvariantsOver(document: unknown, primitives: readonly PrimitiveMetadata[], name: string): readonly InvariantVerdict[] {
  if (invariantsOf(document).length === 0 || primitives.length === 0) return [];
  checkDocumentInvariants(document, name);
  return checkPolicy(document, primitives).invariants;
}

/** `invariant "x" refuted: tool a is visible (allowed by default) for the context {…}`, or unknown with its reasons. */
export function describeVerdict(verdict: InvariantVerdict): string {
  if (verdict.status === 'proven') return `invariant "${verdict.id}" proven`;
  if (verdict.status === 'unknown') return `invariant "${verdict.id}" unknown: ${verdict.reasons.join('; ')}`;
  const { primitive, context, decision } = verdict.counterexample!;
  return `invariant "${verdict.id}" refuted: ${describePrimitive(primitive)} is ${decision.allowed ? 'visible' : 'hidden'} (${describeDecision(decision)}) for the context ${JSON.stringify(context)}`;
}

async function loadInvariants(io: CliIo, path: string): Promise<Invariant[]> {
  const absolutePath = resolvePath(io, path);
  const name = displayPath(io, absolutePath);
  const parsed = invariantsFileSchema.safeParse(await readJson(io, absolutePath));
  if (!parsed.success) throw new IssuesInputError(name, toPolicyIssues(parsed.error));
  const invariants = Array.isArray(parsed.data) ? parsed.data : parsed.data.invariants;
  try {
    compileInvariants(invariants, name, Array.isArray(parsed.data) ? '' : 'invariants');
  } catch (error) {
    if (error instanceof PolicyCompileError) throw new IssuesInputError(name, error.issues);
    throw error;
  }
  return invariants;
}

/** How the explain line names the primitives: the same flags the check was given. */
function describeSource(manifest: string | undefined, server: string | undefined, exportName: string | undefined): string {
  if (manifest !== undefined) return `--manifest ${quote(manifest)}`;
  return `--server ${quote(server ?? '')}${exportName === undefined ? '' : ` --export ${quote(exportName)}`}`;
}

/** A word as a POSIX shell reads it back. */
function quote(word: string): string {
  return /^[\w./@:=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const statusWidth = 'refuted'.length;

function formatCheck(result: PolicyCheck, policyFile: PolicyFile, primitiveCount: number, source: { policy: string; primitives: string }): string {
  const lines = [`Policy:     ${policyFile.name} (revision ${policyFile.revision})`, `Primitives: ${primitiveCount}`, ''];
  if (result.invariants.length === 0) lines.push('Invariants: none given');
  else lines.push('Invariants:');
  for (const verdict of result.invariants) lines.push(...formatVerdict(verdict, source));
  lines.push('');
  const errors = result.lint.filter((finding) => finding.severity === 'error').length;
  const warnings = result.lint.length - errors;
  if (result.lint.length === 0) lines.push('Lint: nothing found');
  else lines.push('Lint:', ...result.lint.map(formatFinding));
  if (result.lintUnknown.length > 0) lines.push('', 'Not linted (the analysis cannot model these):', ...result.lintUnknown.map((reason) => `  ${reason}`));
  const counts = (['proven', 'refuted', 'unknown'] as const).map((status) => `${result.invariants.filter((verdict) => verdict.status === status).length} ${status}`);
  lines.push('', `${result.passed ? 'Passed' : 'Failed'}: ${counts.join(', ')}; ${plural(errors, 'lint error')}, ${plural(warnings, 'warning')}.`);
  return lines.join('\n');
}

function formatVerdict(verdict: InvariantVerdict, source: { policy: string; primitives: string }): string[] {
  const title = `  ${verdict.status.padEnd(statusWidth)}  ${verdict.id}${verdict.description === undefined ? '' : `: ${verdict.description}`}`;
  const indent = ' '.repeat(statusWidth + 4);
  if (verdict.status === 'refuted' && verdict.counterexample !== undefined) {
    const { primitive, context, decision } = verdict.counterexample;
    const contextJson = JSON.stringify(context);
    return [
      title,
      `${indent}counterexample: ${describePrimitive(primitive)} is ${decision.allowed ? 'visible' : 'hidden'} (${describeDecision(decision)})`,
      `${indent}for the context ${contextJson}`,
      `${indent}confirm: mcp-gate explain --policy ${quote(source.policy)} ${source.primitives} --context ${quote(contextJson)}`,
    ];
  }
  if (verdict.status === 'unknown') return [title, ...verdict.reasons.map((reason) => `${indent}${reason}`)];
  return [title];
}

function formatFinding(finding: LintFinding): string {
  return `  ${finding.severity.padEnd(statusWidth)}  ${finding.code}: ${finding.message}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function toJson(result: PolicyCheck, policyFile: PolicyFile, primitiveCount: number): Record<string, unknown> {
  return {
    policy: { file: policyFile.name, revision: policyFile.revision },
    primitives: primitiveCount,
    invariants: result.invariants.map((verdict) => ({
      id: verdict.id,
      description: verdict.description,
      mode: verdict.mode,
      status: verdict.status,
      counterexample:
        verdict.counterexample === undefined
          ? undefined
          : { primitive: toManifestPrimitive(verdict.counterexample.primitive), context: verdict.counterexample.context, decision: verdict.counterexample.decision },
      reasons: verdict.reasons.length > 0 ? verdict.reasons : undefined,
      contexts: verdict.contexts,
    })),
    lint: result.lint.map((finding) => ({
      code: finding.code,
      severity: finding.severity,
      message: finding.message,
      ruleId: finding.ruleId,
      primitive: finding.primitive === undefined ? undefined : toManifestPrimitive(finding.primitive as PrimitiveMetadata),
    })),
    lintUnknown: result.lintUnknown,
    passed: result.passed,
  };
}

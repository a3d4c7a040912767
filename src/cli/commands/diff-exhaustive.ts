import { diffPolicies, type PolicyDiff, type PolicyDiffClass } from '../../core/analysis/diff-policies.js';
import type { PrimitiveMetadata } from '../../core/primitive-metadata.js';
import type { ParsedArgs } from '../args.js';
import { writeLines } from '../command.js';
import { contextOptionSpecs } from '../context-options.js';
import { exitCodes, loadAll, UsageError, type CliIo } from '../io.js';
import { describeMetadata, loadPrimitives, toManifestPrimitive } from '../manifest.js';
import { loadPolicyDocument, type PolicyFile } from './check.js';

// `mcp-gate diff --exhaustive OLD NEW`: every class of callers whose view changes, over every
// request context (core/analysis/diff-policies.ts), instead of the client profiles × request
// variants the plain diff decides.

const command = 'mcp-gate diff';

/** The options that pick requests to decide; --exhaustive decides every request, so they do not apply. */
const requestOptions = ['client', 'endpoint', ...Object.keys(contextOptionSpecs)];

export async function diffExhaustively(args: ParsedArgs, io: CliIo, oldPath: string, newPath: string): Promise<number> {
  const given = requestOptions.find((name) => args.flag(name));
  if (given !== undefined) throw new UsageError(`${command}: --${given} picks requests to decide, and --exhaustive decides every request; leave one out`);
  const [primitives, before, after] = await loadAll(loadPrimitives(io, args, command), loadPolicyDocument(io, oldPath), loadPolicyDocument(io, newPath));
  const result = diffPolicies(before.document, after.document, primitives);
  if (args.flag('json')) writeLines(io.stdout, JSON.stringify(toJson(result, before, after, primitives.length), null, 2));
  else writeLines(io.stdout, formatDiff(result, before, after, primitives.length));
  // With --exit-code, "nothing changes" must be proven: an unknown answer fails too.
  const changes = result.groups.length > 0 || !result.exact;
  return changes && args.flag('exit-code') ? exitCodes.failed : exitCodes.ok;
}

function formatDiff(result: PolicyDiff, before: PolicyFile, after: PolicyFile, primitiveCount: number): string {
  const lines = [`Old:        ${before.name} (revision ${before.revision})`, `New:        ${after.name} (revision ${after.revision})`, `Primitives: ${primitiveCount}`, ''];
  for (const group of result.groups) {
    lines.push(group.paths.length === 0 ? 'Every caller:' : `Callers told apart by ${group.paths.join(', ')}:`);
    for (const item of group.classes) lines.push(...formatClass(item));
    lines.push('');
  }
  if (result.unknown.length > 0) lines.push('Not decided exactly (the analysis cannot model these):', ...result.unknown.map((reason) => `  ${reason}`), '');
  const classCount = result.groups.reduce((sum, group) => sum + group.classes.length, 0);
  const scope = result.exact ? 'over every request context' : 'over every request context the analysis models';
  if (classCount === 0) lines.push(`No caller's view changes, ${scope}.`);
  else {
    const groups = result.groups.length === 1 ? '1 group' : `${result.groups.length} independent groups`;
    lines.push(`Views change for ${classCount === 1 ? '1 class' : `${classCount} classes`} of callers in ${groups}, ${scope}.`);
  }
  return lines.join('\n');
}

function formatClass(item: PolicyDiffClass): string[] {
  return [
    `  ${JSON.stringify(item.context)}`,
    ...item.gains.map((primitive) => `    + ${describeMetadata(primitive)}`),
    ...item.loses.map((primitive) => `    - ${describeMetadata(primitive)}`),
  ];
}

function toJson(result: PolicyDiff, before: PolicyFile, after: PolicyFile, primitiveCount: number): unknown {
  const manifestEntry = (primitive: PrimitiveMetadata) => toManifestPrimitive(primitive);
  return {
    old: { file: before.name, revision: before.revision },
    new: { file: after.name, revision: after.revision },
    primitives: primitiveCount,
    groups: result.groups.map((group) => ({
      paths: group.paths,
      classes: group.classes.map((item) => ({ context: item.context, gains: item.gains.map(manifestEntry), loses: item.loses.map(manifestEntry) })),
    })),
    exact: result.exact,
    unknown: result.unknown,
  };
}

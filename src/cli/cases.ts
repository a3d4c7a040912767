import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { createRequestContext, requestContextSchema, type RequestContext, type RequestContextInput } from '../core/context.js';
import type { PrimitiveMetadata } from '../core/primitive-metadata.js';
import { toPolicyIssues } from '../core/policy/schema.js';
import type { Decision, Policy } from '../core/policy/types.js';
import { displayPath, readJson, resolvePath, type CliIo } from './io.js';
import { describeMetadata, manifestPrimitiveSchema, toMetadata, type ManifestPrimitive } from './manifest.js';
import { IssuesInputError } from './policy-file.js';
import { findClientProfile, profileContext } from '../profiles/client-profiles.js';

/** A RequestContextInput as JSON: what `createRequestContext` takes (also `--context` of explain and diff). */
export const requestContextInputSchema = z.strictObject({
  // The context's own schema with every field optional, so a field added there is accepted here.
  request: requestContextSchema.shape.request.partial().optional(),
  client: requestContextSchema.shape.client.partial().optional(),
  auth: requestContextSchema.shape.auth.partial().optional(),
  /** Flag values by key, as a gate would resolve them (a flag not given holds the policy's declared default). */
  flags: z.record(z.string(), z.unknown()).optional(),
});

/** A RequestContextInput, plus `profile`: a real client whose name, capabilities and protocol version come first. */
const caseContextSchema = requestContextInputSchema.extend({ profile: z.string().min(1).optional() });

const expectationSchema = z.strictObject({
  allowed: z.boolean(),
  reason: z.enum(['rule', 'default', 'requirement', 'error']).optional(),
  ruleId: z.string().min(1).optional(),
});

const policyCaseSchema = z.strictObject({
  name: z.string().min(1),
  /** A profile name as a string is short for `{"profile": NAME}`; absent means an empty context. */
  context: z.union([z.string().min(1), caseContextSchema]).optional(),
  primitive: manifestPrimitiveSchema,
  expect: expectationSchema,
});

export const casesFileSchema = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  /** The policy file, relative to the cases file. */
  policy: z.string().min(1),
  cases: z.array(policyCaseSchema).min(1),
});

export type CaseContext = z.infer<typeof caseContextSchema>;
export type PolicyCase = z.infer<typeof policyCaseSchema>;
export type Expectation = z.infer<typeof expectationSchema>;

export interface CasesFile {
  /** The cases file as messages name it. */
  readonly name: string;
  /** Absolute path of the policy the cases are about. */
  readonly policyPath: string;
  readonly cases: readonly PolicyCase[];
}

export function parseCasesFile(value: unknown, absolutePath: string, name: string): CasesFile {
  const parsed = casesFileSchema.safeParse(value);
  if (!parsed.success) throw new IssuesInputError(name, toPolicyIssues(parsed.error));
  // Failures are reported by case name, so a name must say which case failed.
  const firstIndex = new Map<string, number>();
  const duplicates: Array<{ path: string; message: string }> = [];
  parsed.data.cases.forEach((policyCase, index) => {
    const earlier = firstIndex.get(policyCase.name);
    if (earlier === undefined) firstIndex.set(policyCase.name, index);
    else duplicates.push({ path: `cases[${index}].name`, message: `case name "${policyCase.name}" is already used by cases[${earlier}]` });
  });
  if (duplicates.length > 0) throw new IssuesInputError(name, duplicates);
  return { name, policyPath: resolve(dirname(absolutePath), parsed.data.policy), cases: parsed.data.cases };
}

export async function loadCasesFile(io: CliIo, path: string): Promise<CasesFile> {
  const absolutePath = resolvePath(io, path);
  return parseCasesFile(await readJson(io, absolutePath), absolutePath, displayPath(io, absolutePath));
}

/** The context a case describes; a profile supplies the client, explicit fields win over it. */
export function buildCaseContext(context: PolicyCase['context']): RequestContext {
  const input: CaseContext = typeof context === 'string' ? { profile: context } : (context ?? {});
  const { profile: profileName, ...explicit } = input;
  const base: RequestContextInput = profileName === undefined ? {} : profileContext(findClientProfile(profileName));
  return createRequestContext({
    request: { ...base.request, ...explicit.request },
    client: { ...base.client, ...explicit.client },
    auth: { ...explicit.auth },
    flags: explicit.flags,
  });
}

export interface CaseResult {
  readonly policyCase: PolicyCase;
  readonly passed: boolean;
  /** The decision, or why the case could not be evaluated (an unknown profile). */
  readonly actual: Decision | { readonly problem: string };
}

/** Where the cases' primitives come from when not from the cases themselves: `--manifest`, `--server` or an upstream. */
export interface PrimitiveSource {
  /** The source as messages name it: a file, or the upstream's URL or command line. */
  readonly name: string;
  readonly primitives: readonly PrimitiveMetadata[];
}

/** The primitive a case is about: as the case writes it, or the one of the source the case names. */
export function casePrimitive(policyCase: PolicyCase, source: PrimitiveSource | undefined): PrimitiveMetadata | { readonly problem: string } {
  return source === undefined ? toMetadata(policyCase.primitive) : findInSource(policyCase.primitive, source);
}

const annotationFields = ['groups', 'tags', 'requires', 'endpoints'] as const;

/**
 * The source's primitive of the case's kind and name (a resource by its `uri` when the case
 * gives one; `version` and `uriTemplate` must match when given), with the source's annotation.
 * An annotation field the case writes must be the source's: a case written against a manifest
 * then fails, rather than passes on its own copy, when the live server annotates differently.
 */
function findInSource(primitive: ManifestPrimitive, source: PrimitiveSource): PrimitiveMetadata | { readonly problem: string } {
  const written = toMetadata(primitive);
  const candidates = source.primitives.filter(
    (listed) =>
      listed.kind === written.kind &&
      (written.kind === 'resource' && written.uri !== undefined ? listed.uri === written.uri : listed.name === written.name) &&
      (written.version === undefined || listed.version === written.version) &&
      (written.uriTemplate === undefined || listed.uriTemplate === written.uriTemplate),
  );
  const described = `${written.kind} "${written.kind === 'resource' && written.uri !== undefined ? written.uri : written.name}"${written.version === undefined ? '' : ` version ${written.version}`}`;
  if (candidates.length === 0) return { problem: `${source.name} lists no ${described}` };
  if (candidates.length > 1) {
    return { problem: `${source.name} lists several of ${described} (${candidates.map(describeMetadata).join(', ')}); give its "version" in the case` };
  }
  const found = candidates[0]!;
  for (const field of annotationFields) {
    if (primitive[field] === undefined) continue;
    const [expected, actual] = [JSON.stringify(written[field]), JSON.stringify(found[field])];
    if (expected !== actual) return { problem: `the case says ${field} ${expected}, ${source.name} says ${actual}` };
  }
  return found;
}

export function runCase(policy: Policy, policyCase: PolicyCase, source?: PrimitiveSource): CaseResult {
  let context: RequestContext;
  try {
    context = buildCaseContext(policyCase.context);
  } catch (error) {
    return { policyCase, passed: false, actual: { problem: (error as Error).message } };
  }
  const primitive = casePrimitive(policyCase, source);
  if ('problem' in primitive) return { policyCase, passed: false, actual: primitive };
  const decision = policy.explain(context, primitive);
  return { policyCase, passed: matches(policyCase.expect, decision), actual: decision };
}

export function matches(expect: Expectation, decision: Decision): boolean {
  if (expect.allowed !== decision.allowed) return false;
  if (expect.reason !== undefined && expect.reason !== decision.reason) return false;
  return expect.ruleId === undefined || expect.ruleId === decision.ruleId;
}

/** `denied by rule "canary-needs-header"`, `allowed`, `denied by requirement`. */
export function describeExpectation(expect: Expectation): string {
  const verb = expect.allowed ? 'allowed' : 'denied';
  if (expect.ruleId !== undefined) return `${verb} by ${expect.reason === 'error' ? 'error in rule' : 'rule'} "${expect.ruleId}"`;
  return expect.reason === undefined ? verb : `${verb} by ${expect.reason}`;
}

/** `denied by requirement (requires client capability "sampling")`; rules and the default speak for themselves. */
export function describeDecision(decision: Decision): string {
  const verb = decision.allowed ? 'allowed' : 'denied';
  switch (decision.reason) {
    case 'rule':
      return `${verb} by rule "${decision.ruleId}"`;
    case 'default':
      return `${verb} by default`;
    case 'requirement':
      return `${verb} by requirement (${decision.message})`;
    case 'error':
      return `${verb} by error${decision.ruleId === undefined ? '' : ` in rule "${decision.ruleId}"`} (${decision.message})`;
  }
}

import { z } from 'zod';
import { primitiveKindSchema } from '../primitive-metadata.js';
import { joinPath, type PolicyIssue } from '../errors.js';
import { builtinOperators } from '../logic/operators.js';
import { suggestName } from '../logic/suggest.js';
import { contextPathPattern } from './context-shape.js';

// Bounds on every free-form field keep a hostile document from costing more than reading it.
const ruleId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'rule id may contain letters, digits, "_", ".", ":" and "-"');
const text = z.string().max(4096);
const glob = z.string().min(1).max(1024);
const label = z.string().min(1).max(256);

/** Most rules in one document; longer lists are rejected before any rule is read. */
export const maxRules = 10_000;
const maxMessageLength = 300;
/** Most flags one document declares. */
const maxFlags = 256;

/**
 * A strict object whose unknown keys get a suggestion: zod's own message
 * (`Unrecognized key: "group"`) plus ` (did you mean "groups"?)` when a known key is close.
 */
function strictObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? describeUnknownKeys(issue.keys, known) : undefined),
  });
}

function describeUnknownKeys(keys: readonly string[], known: readonly string[]): string {
  const described = keys.map((key) => {
    const suggestion = suggestName(key, known);
    return `${quoteKey(key)}${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`;
  });
  return `Unrecognized key${keys.length === 1 ? '' : 's'}: ${described.join(', ')}`;
}

/** Long hostile keys are abbreviated, as in paths (joinPath), so one cannot fill every message. */
function quoteKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 32)}…(${key.length} characters)` : key);
}

export const appliesToSchema = strictObject({
  kinds: z.array(primitiveKindSchema).min(1).max(4).optional(),
  /** Globs over the primitive's name (and, for resources, its URI). */
  names: z.array(glob).min(1).max(1024).optional(),
  /** Matches when the primitive is in any of these groups. */
  groups: z.array(label).min(1).max(1024).optional(),
  /** Matches when the primitive has any of these tags. */
  tags: z.array(label).min(1).max(1024).optional(),
}).describe('Which primitives the rule is about; every field given must match.');

export const policyRuleSchema = strictObject({
  id: ruleId,
  description: text.optional(),
  effect: z.enum(['allow', 'deny']),
  appliesTo: appliesToSchema.optional(),
  /** JSON-Logic over `request.*`, `client.*`, `auth.*`, `primitive.*`; absent means always. */
  when: z.unknown().optional().describe('JSON-Logic condition over request.*, client.*, auth.*, primitive.*'),
});

/**
 * A property `mcp-gate check` proves over every context (src/core/analysis/invariants.ts): JSON-Logic
 * over the context, `primitive.*` and the decision (`visible`, `decision.reason`, `decision.ruleId`).
 */
export const invariantSchema = strictObject({
  id: ruleId,
  description: text.optional(),
  never: z.unknown().optional().describe('JSON-Logic that no context and primitive may make true'),
  always: z.unknown().optional().describe('JSON-Logic that every context and primitive must make true'),
}).refine((invariant) => (invariant.never === undefined) !== (invariant.always === undefined), { message: 'an invariant has exactly one of "never" and "always"' });

/** A flag key as policies read it (`flags.<key>`): one path segment, so no dots. */
const flagKey = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_:/-]*$/, 'flag key may contain letters, digits, "_", ":", "/" and "-" (no dots: `flags.<key>` is one path segment)');

/** The value a flag has when resolving it fails (fail closed); its type is the type the flag is resolved as. */
const flagDefault = z.union([z.boolean(), z.string().max(4096), z.number(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** A flag a policy reads (`{"var": "flags.<key>"}`), with the default it holds when resolving it fails. */
export const flagDeclarationSchema = strictObject({
  default: flagDefault.describe('The value used when the flag cannot be resolved (error, timeout, no flag client); boolean, string, number or JSON.'),
  description: text.optional(),
});

/** The zod schema of a policy document (version 1); compilePolicy validates with it. */
export const policyDocumentSchema = strictObject({
  $schema: z.string().max(2048).optional(),
  version: z.literal(1),
  description: text.optional(),
  default: z.enum(['allow', 'deny']),
  enforceRequirements: z.boolean().default(true),
  rules: z.array(policyRuleSchema).max(maxRules).default([]),
  /** Feature flags the rules read as `flags.<key>`, each with its default (resolved per request through OpenFeature). */
  flags: z
    .record(flagKey, flagDeclarationSchema)
    .refine((flags) => Object.keys(flags).length <= maxFlags, { message: `a policy declares at most ${maxFlags} flags` })
    .optional(),
  /** Checked by `mcp-gate check`, `validate` and `test`; they never change a decision. */
  invariants: z.array(invariantSchema).max(1000).optional(),
});

/** A policy document as written (JSON or an object literal): `version`, `default`, `rules`, `invariants`. */
export type PolicyDocument = z.input<typeof policyDocumentSchema>;
/** One rule of a policy document, defaults applied: `id`, `effect`, `appliesTo`, `when`. */
export type PolicyRule = z.infer<typeof policyRuleSchema>;
export type NormalizedPolicyDocument = z.infer<typeof policyDocumentSchema>;

/** Turns zod issues into ours, paths in dot form (`rules[2].appliesTo.kinds[0]`). */
export function toPolicyIssues(error: z.ZodError, base = ''): PolicyIssue[] {
  return error.issues.map((issue) => ({
    code: 'invalid_document',
    path: issue.path.reduce<string>((path, key) => joinPath(path, typeof key === 'number' ? key : String(key)), base),
    // zod quotes unknown keys in full; one hostile key must not be copied into every issue.
    message: issue.message.length > maxMessageLength ? `${issue.message.slice(0, maxMessageLength)}…` : issue.message,
  }));
}

/** The JSON Schema shipped as policies/policy.schema.json (a test keeps the file in sync). */
export function createPolicyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(policyDocumentSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const rule = (schema as { properties: { rules: { items: { properties: Record<string, unknown> } } } }).properties.rules.items;
  rule.properties.when = { $ref: '#/$defs/condition', ...(rule.properties.when as object) };
  return {
    ...schema,
    $id: 'https://mcp-gate.dev/policy.schema.json',
    title: 'mcp-gate policy',
    description: 'Which MCP tools, prompts, resources and resource templates each request may see and use.',
    $defs: { ...(schema.$defs as object | undefined), ...conditionJsonSchemas() },
  };
}

/**
 * What JSON Schema can say about a condition: literal `var` and `missing` paths must be fields
 * of the context (the errors of context-shape.ts; its warnings have no JSON Schema form). Bodies
 * of array operators read items, and objects with several keys are literal data: both are free.
 */
function conditionJsonSchemas(): Record<string, unknown> {
  const condition = { $ref: '#/$defs/condition' };
  const path = { $ref: '#/$defs/contextPath' };
  const pathOrCondition = { if: { type: 'string' }, then: path, else: condition };
  const key = { if: { type: 'string' }, then: path, else: { if: { type: 'array' }, then: { items: pathOrCondition }, else: condition } };
  const operations: Record<string, unknown> = {
    var: { if: { type: 'array' }, then: { prefixItems: [pathOrCondition], items: condition }, else: pathOrCondition },
    missing: { if: { type: 'array' }, then: { items: { $ref: '#/$defs/missingKey' } }, else: { $ref: '#/$defs/missingKey' } },
    missing_some: { if: { type: 'array' }, then: { prefixItems: [condition, { $ref: '#/$defs/missingKey' }], items: condition }, else: condition },
  };
  for (const [name, operator] of builtinOperators) {
    const itemArgs = operator.itemArgs;
    if (itemArgs === undefined) continue;
    const prefixItems = Array.from({ length: Math.max(...itemArgs) + 1 }, (_, index) => (itemArgs.includes(index) ? true : condition));
    operations[name] = { if: { type: 'array' }, then: { prefixItems, items: condition }, else: condition };
  }
  return {
    condition: {
      description: 'JSON-Logic condition over request.*, client.*, auth.*, primitive.* (docs/policy-language.md)',
      if: { type: 'array' },
      then: { items: condition },
      else: {
        if: { type: 'object', minProperties: 1, maxProperties: 1 },
        then: { properties: operations, additionalProperties: condition },
      },
    },
    missingKey: key,
    contextPath: {
      type: 'string',
      description: 'A path into the request context: request.*, client.*, auth.*, primitive.* (alias tool.*)',
      pattern: contextPathPattern(),
    },
  };
}

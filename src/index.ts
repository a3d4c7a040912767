// mcp-gate core: the policy engine, free of any MCP SDK. Adapters live at mcp-gate/sdk and mcp-gate/server.
export { compileLogic } from './core/logic/compile.js';
export type { CompileLogicOptions, CompiledLogic } from './core/logic/compile.js';
export type { CompileLimits } from './core/logic/types.js';
export type { CustomOperators } from './core/logic/operators.js';
export { isTruthy } from './core/logic/truthy.js';
export { compilePredicate } from './core/policy/predicate.js';
export type { CompilePredicateOptions, Predicate } from './core/policy/predicate.js';
export { compilePolicy } from './core/policy/compile-policy.js';
export type { CompilePolicyOptions } from './core/policy/compile-policy.js';
export { createPolicyJsonSchema, policyDocumentSchema, toPolicyIssues } from './core/policy/schema.js';
export type { PolicyDocument, PolicyRule } from './core/policy/schema.js';
export type { Decision, DecisionReason, Effect, EvaluationErrorHandler, Policy, PolicyRuleSummary, UnmetRequirement } from './core/policy/types.js';
export { createVisibilityFilter } from './core/policy/visibility-filter.js';
export type { VisibilityFilter, VisibilityFilterOptions } from './core/policy/visibility-filter.js';
export {
  createPrimitiveMetadata,
  createRequestContext,
  primitiveAnnotationSchema,
  primitiveKindSchema,
  primitiveMetadataSchema,
  requestContextSchema,
} from './core/context.js';
export type { PrimitiveAnnotation, PrimitiveKind, PrimitiveMetadata, RequestContext, RequestContextInput } from './core/context.js';
export { MetadataError, PolicyCompileError, PolicyError, PolicyEvaluationError, PolicyOptionError, RequestContextError } from './core/errors.js';
export type { PolicyIssue, PolicyIssueCode, PolicyIssueSeverity } from './core/errors.js';

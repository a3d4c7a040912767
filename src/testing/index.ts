// mcp-gate/testing: fast-check arbitraries and gate invariant checks to run on your own servers.
// fast-check (^4) is a peer dependency of this entry point.
export { checkGateInvariants, defaultSeed } from './check-gate-invariants.js';
export type { CheckGateInvariantsOptions, GateInvariantsReport } from './check-gate-invariants.js';
export { GateInvariantError } from './errors.js';
export { callers, capabilityPaths, clientCapabilities, defaultCallerDomains, profileCallers, requestContexts, toRequestContext } from './callers.js';
export type { Caller, CallerAuth, CallerOptions, RequestContextOptions } from './callers.js';
export { annotations, primitiveKinds, primitiveMetadata } from './metadata.js';
export type { AnnotationOptions, PrimitiveMetadataOptions } from './metadata.js';
export { conditions, policyDocuments } from './policies.js';
export type { PolicyDocumentOptions } from './policies.js';
export { brokenPolicyDocuments } from './broken-policies.js';
export type { BrokenPolicy, DefectClass, ExpectedIssue } from './broken-policies.js';
export { connectAsCaller } from './connect.js';
export type { CallerConnection } from './connect.js';
export { capabilitiesSeenByServer, expectedView } from './oracle.js';
export type { ExpectedView, OracleOptions } from './oracle.js';
export { createRegistryServer, registries, registryMetadata } from './registries.js';
export type { AnnotationSource, Registry, RegistryOptions, RegistryPrompt, RegistryResource, RegistryServerOptions, RegistryTemplate, RegistryTool } from './registries.js';
export { readRegistry } from './registry.js';
export type { AnyMcpServer, GateAdapter, RegisteredPrimitive } from './registry.js';

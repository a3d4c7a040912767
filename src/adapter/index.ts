// SDK-agnostic adapter logic shared by the v1 (`sdk/`) and v2 (`server/`) adapters.
export { dependsOnCaller } from './cache-scope.js';
export { missingCapabilities, toCapabilitiesObject } from './capability-requirements.js';
export { buildCatalog, assertCatalogValid, type Catalog, type CatalogEntry, type CatalogOptions, type PrimitiveSource } from './catalog.js';
export { createDecisionLog, type DecisionEvent, type DecisionLog } from './decision-events.js';
export {
  clientCapabilitiesMetaKey,
  clientInfoMetaKey,
  protocolVersionMetaKey,
  readEnvelope,
  type RequestEnvelope,
} from './envelope.js';
export { oneOf, readGateSettings, type DeniedMode, type GateSettings, type SharedGateOptions } from './gate-options.js';
export { createPolicyHolder, type GatedSession, type GateRuntime, type PolicyHolder } from './gate-runtime.js';
export type { GatedRequest, JsonRpcRequest, StoredHandler } from './gated-request.js';
export { changedLists, SessionContexts, type ListKind } from './list-changes.js';
export {
  itemsByKey,
  listVisibleResources,
  pageOf,
  toPublicItem,
  visibleItems,
  type ListableResources,
  type ListCounts,
  type ListItem,
} from './list-items.js';
export {
  describePrimitive,
  gateMetaKey,
  mergeAnnotations,
  metadataKey,
  parseAnnotation,
  publicMeta,
  readGateMeta,
  requiredCapabilitiesMetaKey,
  validateMetadataOption,
} from './metadata.js';
export { createPaginator, InvalidCursorError, type Page, type Paginator } from './pagination.js';
export { isPolicy, resolvePolicy } from './policy-input.js';
export { createPolicyView, type MissingCapabilities, type PolicyView } from './policy-view.js';
export { answerRenamed, renameInError, renameInToolResult } from './renaming.js';
export {
  completeWithTemplate,
  requestedUrl,
  resourceCandidates,
  routePrompt,
  routeResourceRead,
  routeTemplateCompletion,
  routeToolCall,
  type CompletableTemplate,
  type MatchableTemplate,
  type MatchableTemplates,
  type ResourceCandidates,
  type Route,
} from './routing.js';
export {
  checkServerInternals,
  gatedMethods,
  gateHandlerMap,
  handlerMapOf,
  notifyListChanged,
  RegistryTracker,
  type GatedMethod,
  type ListChangeNotifier,
  type RegistrationObserver,
  type SupportedSdk,
} from './server-hooks.js';
export { compareVersionsDescending, defaultVersionSeparator, publicToolName } from './versioning.js';

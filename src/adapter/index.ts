// SDK-agnostic adapter logic shared by the v1 (`sdk/`) and v2 (`server/`) adapters.
export { buildCatalog, assertCatalogValid, type Catalog, type CatalogEntry, type CatalogOptions, type PrimitiveSource } from './catalog.js';
export { changedLists, SessionContexts, type ListKind } from './list-changes.js';
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
export { compareVersionsDescending, defaultVersionSeparator, publicToolName } from './versioning.js';

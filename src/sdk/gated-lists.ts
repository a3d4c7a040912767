import { ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import type { JsonRpcRequest } from '../adapter/gated-request.js';
import { itemsByKey, listAnswer, listVisibleResources, visibleItems, type ListCounts, type ListItem } from '../adapter/list-items.js';
import { invalidCursor } from './denials.js';
import type { Installation } from './installation.js';
import type { SdkExtra, StoredHandler } from './server-internals.js';

interface CachedListSpec {
  readonly method: string;
  readonly kind: PrimitiveKind;
  readonly field: string;
  readonly schema: { safeParse(value: unknown): { success: boolean } };
}

const toolsList: CachedListSpec = { method: 'tools/list', kind: 'tool', field: 'tools', schema: ListToolsRequestSchema };
const promptsList: CachedListSpec = { method: 'prompts/list', kind: 'prompt', field: 'prompts', schema: ListPromptsRequestSchema };
const templatesList: CachedListSpec = {
  method: 'resources/templates/list',
  kind: 'resourceTemplate',
  field: 'resourceTemplates',
  schema: ListResourceTemplatesRequestSchema,
};

/**
 * tools/list, prompts/list and resources/templates/list depend only on the registry, so the SDK's
 * answer is computed once per registry version (the SDK converts every zod schema to JSON Schema
 * on every tools/list) and each visible set's public items once per context key.
 */
function createCachedList(spec: CachedListSpec) {
  return function createGatedList(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
    let sdkItems: { version: number; byKey: Promise<ReadonlyMap<string, ListItem>> } | undefined;
    const publicItems = new WeakMap<readonly CatalogEntry[], { items: readonly ListItem[]; counts: ListCounts }>();

    function sdkItemsByKey(version: number, request: JsonRpcRequest, extra: SdkExtra): Promise<ReadonlyMap<string, ListItem>> {
      if (sdkItems?.version === version) return sdkItems.byKey;
      const byKey = sdkHandler(request, extra).then((result) => itemsByKey((result as Record<string, unknown>)[spec.field] as ListItem[]));
      byKey.catch(() => (sdkItems = undefined));
      sdkItems = { version, byKey };
      return byKey;
    }

    return async function gatedList(request: JsonRpcRequest, extra: SdkExtra) {
      // The SDK rejects malformed list requests while parsing; on a cache hit it is not called, so check here.
      if (request.params !== undefined && !spec.schema.safeParse(request).success) return sdkHandler(request, extra);
      const gated = installation.begin(spec.method, extra);
      const cacheKey = gated.view.cacheKey(gated.catalog, gated.context);
      const visible = gated.view.visibleEntries(gated.catalog, spec.kind, gated.context, cacheKey);
      let listed = publicItems.get(visible);
      if (!listed) {
        listed = visibleItems(visible, await sdkItemsByKey(gated.catalog.version, request, extra), installation.settings.exposeRequirements);
        publicItems.set(visible, listed);
      }
      return listAnswer(installation.settings, gated, { kind: spec.kind, field: spec.field, cursor: request.params?.['cursor'] }, listed, cacheKey, invalidCursor);
    };
  };
}

/** resources/list runs the templates' list callbacks per request, so nothing is cached. */
export function createGatedResourcesList(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourcesList(request: JsonRpcRequest, extra: SdkExtra) {
    if (request.params !== undefined && !ListResourcesRequestSchema.safeParse(request).success) return sdkHandler(request, extra);
    const gated = installation.begin('resources/list', extra);
    const { internals, settings } = installation;
    const registered = { resources: internals._registeredResources, templates: internals._registeredResourceTemplates };
    const listed = await listVisibleResources(registered, gated, settings.exposeRequirements, extra);
    const list = { kind: 'resource' as const, field: 'resources', cursor: request.params?.['cursor'] };
    return listAnswer(settings, gated, list, listed, gated.view.cacheKey(gated.catalog, gated.context), invalidCursor);
  };
}

/** The gated list methods of this binding's handler table. */
export const gatedLists = {
  'tools/list': createCachedList(toolsList),
  'prompts/list': createCachedList(promptsList),
  'resources/list': createGatedResourcesList,
  'resources/templates/list': createCachedList(templatesList),
};

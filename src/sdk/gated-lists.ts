import {
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { PrimitiveKind } from '../core/context.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { publicMeta } from '../adapter/metadata.js';
import { InvalidCursorError, type Page } from '../adapter/pagination.js';
import type { GatedRequest, Installation } from './installation.js';
import { invalidCursor } from './denials.js';
import type { JsonRpcRequest, SdkExtra, StoredHandler } from './server-internals.js';

type ListItem = Record<string, unknown>;

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
    let sdkItems: { version: number; byName: Promise<ReadonlyMap<string, ListItem>> } | undefined;
    const publicItems = new WeakMap<readonly CatalogEntry[], readonly ListItem[]>();

    function itemsByName(version: number, request: JsonRpcRequest, extra: SdkExtra): Promise<ReadonlyMap<string, ListItem>> {
      if (sdkItems?.version === version) return sdkItems.byName;
      const byName = sdkHandler(request, extra).then((result) => {
        const items = (result as Record<string, unknown>)[spec.field] as ListItem[];
        return new Map(items.map((item) => [item['name'] as string, item]));
      });
      byName.catch(() => (sdkItems = undefined));
      sdkItems = { version, byName };
      return byName;
    }

    return async function gatedList(request: JsonRpcRequest, extra: SdkExtra) {
      // The SDK rejects malformed list requests while parsing; on a cache hit it is not called, so check here.
      if (request.params !== undefined && !spec.schema.safeParse(request).success) return sdkHandler(request, extra);
      const gated = installation.begin(spec.method, extra);
      const cacheKey = gated.view.cacheKey(gated.catalog, gated.context);
      const visible = gated.view.visibleEntries(gated.catalog, spec.kind, gated.context, cacheKey);
      let items = publicItems.get(visible);
      if (!items) {
        const byName = await itemsByName(gated.catalog.version, request, extra);
        items = visible.flatMap((entry) => {
          const item = byName.get(entry.key);
          return item ? [toPublicItem(item, entry, installation.settings.exposeRequirements)] : [];
        });
        publicItems.set(visible, items);
      }
      return toPageResult(spec.field, page(installation, gated, spec.kind, items, request, cacheKey));
    };
  };
}

export const createGatedToolsList = createCachedList(toolsList);
export const createGatedPromptsList = createCachedList(promptsList);
export const createGatedTemplatesList = createCachedList(templatesList);

/**
 * resources/list runs the templates' list callbacks per request, so nothing is cached; this
 * mirrors the SDK's handler, skipping hidden resources and never calling a hidden template.
 */
export function createGatedResourcesList(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourcesList(request: JsonRpcRequest, extra: SdkExtra) {
    if (request.params !== undefined && !ListResourcesRequestSchema.safeParse(request).success) return sdkHandler(request, extra);
    const gated = installation.begin('resources/list', extra);
    const { view, catalog, context } = gated;
    const expose = installation.settings.exposeRequirements;
    const items: ListItem[] = [];
    for (const [uri, resource] of Object.entries(installation.internals._registeredResources)) {
      const entry = catalog.get('resource', uri);
      if (!resource.enabled || !entry || !view.isVisible(context, entry)) continue;
      items.push(toPublicItem({ uri, name: resource.name, ...resource.metadata }, entry, expose));
    }
    for (const [name, template] of Object.entries(installation.internals._registeredResourceTemplates)) {
      const entry = catalog.get('resourceTemplate', name);
      const listCallback = template.resourceTemplate.listCallback;
      if (!listCallback || !entry || !view.isVisible(context, entry)) continue;
      const result = await listCallback(extra);
      for (const resource of result.resources) items.push(toPublicItem({ ...template.metadata, ...resource }, entry, expose));
    }
    return toPageResult('resources', page(installation, gated, 'resource', items, request, view.cacheKey(catalog, context)));
  };
}

function page(installation: Installation, gated: GatedRequest, kind: PrimitiveKind, items: readonly ListItem[], request: JsonRpcRequest, cacheKey: string) {
  const cursor = request.params?.['cursor'];
  const binding = `${kind}\u0000${gated.view.policy.revision}\u0000${cacheKey}`;
  try {
    return installation.settings.paginator.page(items, typeof cursor === 'string' ? cursor : undefined, binding);
  } catch (error) {
    throw error instanceof InvalidCursorError ? invalidCursor() : error;
  }
}

function toPageResult(field: string, page: Page<ListItem>): Record<string, unknown> {
  return page.nextCursor === undefined ? { [field]: page.items } : { [field]: page.items, nextCursor: page.nextCursor };
}

/** The item a client sees: public name, `_meta` without the gate's annotation. Unchanged items are reused. */
function toPublicItem(item: ListItem, entry: CatalogEntry, exposeRequirements: boolean): ListItem {
  const meta = publicMeta(item['_meta'], exposeRequirements ? entry.metadata.requires.capabilities : undefined);
  const renamed = entry.kind === 'tool' && item['name'] !== entry.publicName;
  if (!renamed && meta === item['_meta']) return item;
  const copy: ListItem = { ...item };
  if (renamed) copy['name'] = entry.publicName;
  if (meta !== undefined) copy['_meta'] = meta;
  else if ('_meta' in copy) delete copy['_meta'];
  return copy;
}

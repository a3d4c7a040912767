import type { ServerContext } from '@modelcontextprotocol/server';
import type { PrimitiveKind } from '../core/context.js';
import { dependsOnCaller } from '../adapter/cache-scope.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { publicMeta } from '../adapter/metadata.js';
import { InvalidCursorError, type Page } from '../adapter/pagination.js';
import { invalidCursor } from './denials.js';
import type { GatedRequest, Installation } from './installation.js';
import type { JsonRpcRequest, StoredHandler } from './server-internals.js';

type ListItem = Record<string, unknown>;
type ListResult = Record<string | symbol, unknown>;

interface ListSpec {
  readonly method: string;
  readonly kinds: readonly PrimitiveKind[];
  readonly field: string;
}

/**
 * tools/list, prompts/list and resources/templates/list: the SDK builds its list (and validates
 * the request) as usual; the gate keeps the items this request may see, under their public names.
 */
function createFilteredList(spec: ListSpec) {
  const [kind] = spec.kinds as [PrimitiveKind];
  return function createGatedList(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
    return async function gatedList(request: JsonRpcRequest, ctx: ServerContext) {
      const gated = installation.begin(spec.method, ctx);
      const sdkResult = (await sdkHandler(request, ctx)) as ListResult;
      const cacheKey = gated.view.cacheKey(gated.catalog, gated.context);
      const visible = gated.view.visibleEntries(gated.catalog, kind, gated.context, cacheKey);
      const byKey = new Map(((sdkResult[spec.field] as ListItem[] | undefined) ?? []).map((item) => [item['name'] as string, item]));
      const items = visible.flatMap((entry) => {
        const item = byKey.get(entry.key);
        return item ? [toPublicItem(item, entry, installation.settings.exposeRequirements)] : [];
      });
      return toListResult(gated, spec, page(installation, gated, kind, items, request, cacheKey), sdkResult);
    };
  };
}

export const createGatedToolsList = createFilteredList({ method: 'tools/list', kinds: ['tool'], field: 'tools' });
export const createGatedPromptsList = createFilteredList({ method: 'prompts/list', kinds: ['prompt'], field: 'prompts' });
export const createGatedTemplatesList = createFilteredList({ method: 'resources/templates/list', kinds: ['resourceTemplate'], field: 'resourceTemplates' });

const resourcesList: ListSpec = { method: 'resources/list', kinds: ['resource', 'resourceTemplate'], field: 'resources' };

/**
 * resources/list runs the templates' list callbacks, so it cannot be filtered afterwards without
 * running hidden ones; this mirrors the SDK 2.4 handler, skipping hidden resources and never
 * calling a hidden template. (A server-level cache hint for resources/list is therefore not
 * applied: the result keeps the SDK's conservative default, `private`.)
 */
export function createGatedResourcesList(installation: Installation, _sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourcesList(request: JsonRpcRequest, ctx: ServerContext) {
    const gated = installation.begin('resources/list', ctx);
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
      const result = await listCallback(ctx);
      for (const resource of result.resources) items.push(toPublicItem({ ...template.metadata, ...resource }, entry, expose));
    }
    const cacheKey = view.cacheKey(catalog, context);
    return toListResult(gated, resourcesList, page(installation, gated, 'resource', items, request, cacheKey), {});
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

/**
 * The page as a result, carrying over what the SDK attached for the 2026-07-28 encoder (cache
 * fields, and the symbol-keyed cache-hint carrier that never reaches the wire). When the visible
 * set depends on the caller, a `public` scope anywhere on it becomes `private`.
 */
function toListResult(gated: GatedRequest, spec: ListSpec, page: Page<ListItem>, sdkResult: ListResult): ListResult {
  const result: ListResult = { [spec.field]: page.items };
  if (page.nextCursor !== undefined) result['nextCursor'] = page.nextCursor;
  for (const field of ['ttlMs', 'cacheScope', '_meta']) if (sdkResult[field] !== undefined) result[field] = sdkResult[field];
  for (const symbol of Object.getOwnPropertySymbols(sdkResult)) result[symbol] = sdkResult[symbol];
  const primitives = spec.kinds.flatMap((kind) => gated.catalog.entries(kind).map((entry) => entry.metadata));
  if (dependsOnCaller(gated.view.policy, primitives)) makePrivate(result);
  return result;
}

/** Forces `cacheScope: 'private'` on a result's own fields and on the SDK's cache-hint carrier. */
export function makePrivate(result: ListResult): void {
  if (result['cacheScope'] === 'public') result['cacheScope'] = 'private';
  for (const symbol of Object.getOwnPropertySymbols(result)) {
    const hint = result[symbol];
    if (symbol.description === 'modelcontextprotocol.resultCacheHintFallback' && hint !== null && typeof hint === 'object') {
      result[symbol] = { ...hint, cacheScope: 'private' };
    }
  }
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

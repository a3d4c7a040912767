import type { ServerContext } from '@modelcontextprotocol/server';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import { dependsOnCaller } from '../adapter/cache-scope.js';
import type { GatedRequest, JsonRpcRequest } from '../adapter/gated-request.js';
import { itemsByKey, listAnswer, listVisibleResources, visibleItems, type ListCounts, type ListItem } from '../adapter/list-items.js';
import { invalidCursor } from './denials.js';
import type { Installation } from './installation.js';
import type { StoredHandler } from './server-internals.js';

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
      const sdkItems = itemsByKey((sdkResult[spec.field] as ListItem[] | undefined) ?? []);
      const listed = visibleItems(visible, sdkItems, installation.settings.exposeRequirements);
      return answer(installation, gated, spec, listed, request, cacheKey, sdkResult);
    };
  };
}

const resourcesList: ListSpec = { method: 'resources/list', kinds: ['resource', 'resourceTemplate'], field: 'resources' };

/**
 * resources/list is assembled by the gate so hidden templates' list callbacks never run. (A
 * server-level cache hint for resources/list is therefore not applied: the result keeps the
 * SDK's conservative default, `private`.)
 */
export function createGatedResourcesList(installation: Installation, _sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourcesList(request: JsonRpcRequest, ctx: ServerContext) {
    const gated = installation.begin('resources/list', ctx);
    const { internals, settings } = installation;
    const registered = { resources: internals._registeredResources, templates: internals._registeredResourceTemplates };
    const listed = await listVisibleResources(registered, gated, settings.exposeRequirements, ctx);
    return answer(installation, gated, resourcesList, listed, request, gated.view.cacheKey(gated.catalog, gated.context), {});
  };
}

/** The gated list methods of this binding's handler table. */
export const gatedLists = {
  'tools/list': createFilteredList({ method: 'tools/list', kinds: ['tool'], field: 'tools' }),
  'prompts/list': createFilteredList({ method: 'prompts/list', kinds: ['prompt'], field: 'prompts' }),
  'resources/list': createGatedResourcesList,
  'resources/templates/list': createFilteredList({ method: 'resources/templates/list', kinds: ['resourceTemplate'], field: 'resourceTemplates' }),
};

/**
 * The page as a result, carrying over what the SDK attached for the 2026-07-28 encoder (cache
 * fields, and the symbol-keyed cache-hint carrier that never reaches the wire). When the visible
 * set depends on the caller, a `public` scope anywhere on it becomes `private`.
 */
function answer(
  installation: Installation,
  gated: GatedRequest,
  spec: ListSpec,
  listed: { items: readonly ListItem[]; counts: ListCounts },
  request: JsonRpcRequest,
  cacheKey: string,
  sdkResult: ListResult,
): ListResult {
  const list = { kind: spec.kinds[0]!, field: spec.field, cursor: request.params?.['cursor'] };
  const result: ListResult = listAnswer(installation.settings, gated, list, listed, cacheKey, invalidCursor);
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

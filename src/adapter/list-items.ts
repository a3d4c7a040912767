import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { CatalogEntry } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import type { GatedRequest } from './gated-request.js';
import { publicMeta } from './metadata.js';
import { InvalidCursorError, type Page, type Paginator } from './pagination.js';

/** One entry of a list result (`tools`, `prompts`, `resources`, `resourceTemplates`) as the SDK built it. */
export type ListItem = Record<string, unknown>;

/** How many registrations a list request saw and how many the policy withheld from it. */
export interface ListCounts {
  readonly visible: number;
  readonly hidden: number;
}

/** The item a client sees: public name, `_meta` without the gate's annotation. Unchanged items are reused. */
export function toPublicItem(item: ListItem, entry: CatalogEntry, exposeRequirements: boolean): ListItem {
  const meta = publicMeta(item['_meta'], exposeRequirements ? entry.metadata.requires.capabilities : undefined);
  const renamed = entry.kind === 'tool' && item['name'] !== entry.publicName;
  if (!renamed && meta === item['_meta']) return item;
  const copy: ListItem = { ...item };
  if (renamed) copy['name'] = entry.publicName;
  if (meta !== undefined) copy['_meta'] = meta;
  else if ('_meta' in copy) delete copy['_meta'];
  return copy;
}

/** The SDK's list items by registry key (`name`). */
export function itemsByKey(items: readonly ListItem[]): ReadonlyMap<string, ListItem> {
  return new Map(items.map((item) => [item['name'] as string, item]));
}

/**
 * The items of the visible entries, in their order, as the client sees them. Entries the SDK did
 * not list (disabled ones) stay out; every SDK item left over was withheld by the policy.
 */
export function visibleItems(
  visible: readonly CatalogEntry[],
  sdkItems: ReadonlyMap<string, ListItem>,
  exposeRequirements: boolean,
): { items: ListItem[]; counts: ListCounts } {
  const items = visible.flatMap((entry) => {
    const item = sdkItems.get(entry.key);
    return item ? [toPublicItem(item, entry, exposeRequirements)] : [];
  });
  return { items, counts: { visible: items.length, hidden: sdkItems.size - items.length } };
}

/** The parts of registered resources and templates resources/list reads (the same in SDK 1.32 and 2.4). */
export interface ListableResources<SdkContext> {
  readonly resources: Readonly<Record<string, { readonly enabled: boolean; readonly name: string; readonly metadata?: object | undefined }>>;
  readonly templates: Readonly<
    Record<
      string,
      {
        readonly metadata?: object | undefined;
        readonly resourceTemplate: { readonly listCallback?: ((sdkContext: SdkContext) => ListedResources | Promise<ListedResources>) | undefined };
      }
    >
  >;
}

interface ListedResources {
  readonly resources: readonly object[];
}

/**
 * resources/list runs the templates' list callbacks, so it cannot be filtered afterwards without
 * running hidden ones; this mirrors the SDKs' handler, skipping hidden resources and never calling
 * a hidden template. Counts are of registrations: resources, and templates with a list callback.
 */
export async function listVisibleResources<SdkContext>(
  registered: ListableResources<SdkContext>,
  gated: GatedRequest,
  exposeRequirements: boolean,
  sdkContext: SdkContext,
): Promise<{ items: ListItem[]; counts: ListCounts }> {
  const { view, catalog, context } = gated;
  const items: ListItem[] = [];
  let visible = 0;
  let hidden = 0;
  for (const [uri, resource] of Object.entries(registered.resources)) {
    const entry = catalog.get('resource', uri);
    if (!resource.enabled || !entry) continue;
    if (!view.isVisible(context, entry)) {
      hidden++;
      continue;
    }
    visible++;
    items.push(toPublicItem({ uri, name: resource.name, ...resource.metadata }, entry, exposeRequirements));
  }
  for (const [name, template] of Object.entries(registered.templates)) {
    const entry = catalog.get('resourceTemplate', name);
    const listCallback = template.resourceTemplate.listCallback;
    if (!listCallback || !entry) continue;
    if (!view.isVisible(context, entry)) {
      hidden++;
      continue;
    }
    visible++;
    const result = await listCallback(sdkContext);
    for (const resource of result.resources) items.push(toPublicItem({ ...template.metadata, ...resource }, entry, exposeRequirements));
  }
  return { items, counts: { visible, hidden } };
}

/**
 * One page of a gated list. A cursor is bound to the list's kind, the policy revision and the
 * caller's context key, so it only opens the list it was issued for; `invalidCursor` is the
 * SDK's own error for one that does not.
 */
export function pageOf(
  paginator: Paginator,
  gated: GatedRequest,
  kind: PrimitiveKind,
  items: readonly ListItem[],
  cursor: unknown,
  cacheKey: string,
  invalidCursor: () => Error,
): Page<ListItem> {
  const binding = `${kind}\u0000${gated.view.policy.revision}\u0000${cacheKey}`;
  try {
    return paginator.page(items, typeof cursor === 'string' ? cursor : undefined, binding);
  } catch (error) {
    throw error instanceof InvalidCursorError ? invalidCursor() : error;
  }
}

/** What a list request asks for: the list (`kind`, result `field`) and its cursor. */
export interface ListRequest {
  readonly kind: PrimitiveKind;
  readonly field: string;
  readonly cursor: unknown;
}

/**
 * A gated list's answer, recorded in the decision log: one page of the visible items under the
 * list's field, and the next cursor when there is one. `invalidCursor` is the binding's SDK's
 * error for a cursor this list did not issue.
 */
export function listAnswer(
  settings: GateSettings,
  gated: GatedRequest,
  list: ListRequest,
  listed: { readonly items: readonly ListItem[]; readonly counts: ListCounts },
  cacheKey: string,
  invalidCursor: () => Error,
): Record<string, unknown> {
  const page = pageOf(settings.paginator, gated, list.kind, listed.items, list.cursor, cacheKey, invalidCursor);
  settings.decisions.list(gated, listed.counts);
  return page.nextCursor === undefined ? { [list.field]: page.items } : { [list.field]: page.items, nextCursor: page.nextCursor };
}

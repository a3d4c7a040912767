import type { RequestContext } from '../core/context.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { GateSettings } from '../adapter/gate-options.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { ListKind } from '../adapter/list-changes.js';
import { pageOf, type ListCounts, type ListItem } from '../adapter/list-items.js';
import type { PolicyView } from '../adapter/policy-view.js';
import { RelayedError } from './relayed-error.js';
import type { SharedSnapshots, UpstreamSnapshot } from './snapshot.js';
import { upstreamLists } from './upstream.js';

// The wire binding's lists: answered from the upstream's whole lists, filtered and paginated with
// the gate's own cursors, and compared before and after the upstream's list_changed.

/** By list method. A Map: a method is the client's string, and `toString` must not find Object's own. */
export const listKinds: ReadonlyMap<string, PrimitiveKind> = new Map([
  ['tools/list', 'tool'],
  ['prompts/list', 'prompt'],
  ['resources/list', 'resource'],
  ['resources/templates/list', 'resourceTemplate'],
]);

export const kindsOfList: Readonly<Record<ListKind, readonly PrimitiveKind[]>> = { tools: ['tool'], prompts: ['prompt'], resources: ['resource', 'resourceTemplate'] };

/** The SDK's error for a cursor this gate did not issue (the code and text of SDK 1.32's, which mcp-gate/sdk answers too). */
const invalidCursor = () => new RelayedError(-32602, 'Invalid cursor');

/** One page of the list of `kind` this request may see. */
export function answerList(
  settings: GateSettings,
  snapshots: SharedSnapshots,
  gated: GatedRequest & { snapshot: UpstreamSnapshot },
  kind: PrimitiveKind,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const listError = gated.snapshot.listError(kind);
  if (listError) throw listError;
  const { field } = upstreamLists[kind];
  const listed = visibleItems(snapshots, gated, kind, gated.snapshot);
  const cursor = params?.['cursor'];
  if (cursor !== undefined && typeof cursor !== 'string') throw invalidCursor();
  const page = pageOf(settings.paginator, gated, kind, listed.items, cursor, gated.view.cacheKey(gated.catalog, gated.context), invalidCursor);
  settings.decisions.list(gated, listed.counts);
  return page.nextCursor === undefined ? { [field]: page.items } : { [field]: page.items, nextCursor: page.nextCursor };
}

function visibleItems(snapshots: SharedSnapshots, gated: GatedRequest, kind: PrimitiveKind, snapshot: UpstreamSnapshot): { items: readonly ListItem[]; counts: ListCounts } {
  const visible = gated.view.visibleEntries(snapshot.catalog, kind, gated.context, gated.view.cacheKey(snapshot.catalog, gated.context));
  return snapshots.visibleItems(snapshot, kind, visible);
}

/** Whether the visible part of `list` differs between two snapshots for `context` (always, when there is no context to decide on). */
export function visibleListChanged(
  snapshots: SharedSnapshots,
  view: PolicyView,
  list: ListKind,
  before: UpstreamSnapshot,
  after: UpstreamSnapshot,
  context: RequestContext | undefined,
): boolean {
  return (
    context === undefined ||
    kindsOfList[list].some((kind) => JSON.stringify(publicList(snapshots, view, before, kind, context)) !== JSON.stringify(publicList(snapshots, view, after, kind, context)))
  );
}

function publicList(snapshots: SharedSnapshots, view: PolicyView, snapshot: UpstreamSnapshot, kind: PrimitiveKind, context: RequestContext): readonly ListItem[] {
  return visibleItems(snapshots, { view, catalog: snapshot.catalog, context, requestId: undefined }, kind, snapshot).items;
}

import type { PrimitiveKind, RequestContext } from '../core/context.js';
import type { Catalog } from './catalog.js';
import type { PolicyView } from './policy-view.js';

/** The lists MCP announces changes of: `notifications/<kind>/list_changed`. */
export type ListKind = 'tools' | 'prompts' | 'resources';

const kindsOfList: Readonly<Record<ListKind, readonly PrimitiveKind[]>> = {
  tools: ['tool'],
  prompts: ['prompt'],
  resources: ['resource', 'resourceTemplate'],
};

/**
 * The lists whose visible entries differ between two policies for one context. A versioned tool
 * that switches version counts as a change: its definition changed even if its name did not.
 */
export function changedLists(catalog: Catalog, before: PolicyView, after: PolicyView, context: RequestContext): ListKind[] {
  const beforeKey = before.cacheKey(catalog, context);
  const afterKey = after.cacheKey(catalog, context);
  const changed: ListKind[] = [];
  for (const list of Object.keys(kindsOfList) as ListKind[]) {
    const differs = kindsOfList[list].some((kind) => {
      const visibleBefore = before.visibleEntries(catalog, kind, context, beforeKey);
      const visibleAfter = after.visibleEntries(catalog, kind, context, afterKey);
      return visibleBefore.length !== visibleAfter.length || visibleBefore.some((entry, index) => entry !== visibleAfter[index]);
    });
    if (differs) changed.push(list);
  }
  return changed;
}

/**
 * The sessions a gate has served, each with the context of its latest request: what `setPolicy`
 * re-evaluates to decide who gets `list_changed`. Closed sessions are pruned lazily, when the
 * map has doubled since the last sweep, so tracking stays O(1) amortized per request.
 */
export class SessionContexts<Session> {
  readonly #contexts = new Map<Session, RequestContext>();
  readonly #isOpen: (session: Session) => boolean;
  #sweepAt = 64;

  constructor(isOpen: (session: Session) => boolean) {
    this.#isOpen = isOpen;
  }

  observe(session: Session, context: RequestContext): void {
    this.#contexts.set(session, context);
    if (this.#contexts.size >= this.#sweepAt) {
      for (const known of this.#contexts.keys()) if (!this.#isOpen(known)) this.#contexts.delete(known);
      this.#sweepAt = Math.max(64, this.#contexts.size * 2);
    }
  }

  /** Open sessions and their latest contexts. */
  *open(): IterableIterator<[Session, RequestContext]> {
    for (const [session, context] of this.#contexts) {
      if (this.#isOpen(session)) yield [session, context];
      else this.#contexts.delete(session);
    }
  }
}

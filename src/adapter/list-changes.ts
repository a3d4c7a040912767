import type { RequestContext } from '../core/context.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
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
  return listsThatDiffer(catalog, { view: before, context }, { view: after, context });
}

/** One way of deciding a session's lists: a policy and the context it decides on. */
export interface ListDecider {
  readonly view: PolicyView;
  readonly context: RequestContext;
}

/** The lists whose visible entries differ between two deciders (two policies, or one policy and two flag states). */
export function listsThatDiffer(catalog: Catalog, before: ListDecider, after: ListDecider): ListKind[] {
  const beforeKey = before.view.cacheKey(catalog, before.context);
  const afterKey = after.view.cacheKey(catalog, after.context);
  const changed: ListKind[] = [];
  for (const list of Object.keys(kindsOfList) as ListKind[]) {
    const differs = kindsOfList[list].some((kind) => {
      const visibleBefore = before.view.visibleEntries(catalog, kind, before.context, beforeKey);
      const visibleAfter = after.view.visibleEntries(catalog, kind, after.context, afterKey);
      return visibleBefore.length !== visibleAfter.length || visibleBefore.some((entry, index) => entry !== visibleAfter[index]);
    });
    if (differs) changed.push(list);
  }
  return changed;
}

/**
 * The sessions a gate has served, each with the context of its latest request: what `setPolicy`
 * re-evaluates to decide who gets `list_changed`. Closed sessions are pruned when the number
 * tracked has grown by `slack` (1/16 of those open at the last sweep, at least 64) since: a sweep
 * costs 16 `isOpen` checks per new session, and at most that slack of closed sessions (each
 * holding its server, about 100 kB under `mcp-gate serve`) stays reachable. Sweeping only when
 * the map doubled kept up to as many closed servers as open ones: with `serve --max-sessions
 * 1000`, 10,000 sessions took the heap to ~207 MB instead of ~116 MB (bench/sessions.ts).
 */
export class SessionContexts<Session> {
  readonly #contexts = new Map<Session, RequestContext>();
  readonly #isOpen: (session: Session) => boolean;
  #sweepAt = SessionContexts.#slack(0);
  /**
   * The pair recorded last, while the map still holds it: a session whose requests reuse one
   * context (request-context.ts) is recorded once, not on every request (a Map#set was a tenth
   * of the gate's own work in a tools/call). Cleared whenever its session leaves the map.
   */
  #lastSession: Session | undefined;
  #lastContext: RequestContext | undefined;

  static #slack(open: number): number {
    return open + Math.max(64, Math.ceil(open / 16));
  }

  constructor(isOpen: (session: Session) => boolean) {
    this.#isOpen = isOpen;
  }

  /** Sessions tracked now, closed ones not yet pruned included. */
  get size(): number {
    return this.#contexts.size;
  }

  observe(session: Session, context: RequestContext): void {
    if (session === this.#lastSession && context === this.#lastContext) return;
    this.#contexts.set(session, context);
    this.#lastSession = session;
    this.#lastContext = context;
    if (this.#contexts.size >= this.#sweepAt) {
      for (const known of this.#contexts.keys()) if (!this.#isOpen(known)) this.#forget(known);
      this.#sweepAt = SessionContexts.#slack(this.#contexts.size);
    }
  }

  /**
   * Replaces a tracked session's latest context (the same request, with its flags resolved);
   * untracked sessions stay so. With `expected`, only while that is still the latest (a flag
   * change re-resolved it; a newer request's context wins).
   */
  refresh(session: Session, context: RequestContext, expected?: RequestContext): void {
    const kept = this.#contexts.get(session);
    if (kept === undefined || (expected !== undefined && kept !== expected)) return;
    this.#contexts.set(session, context);
    if (session === this.#lastSession) this.#lastContext = context;
  }

  /** Open sessions and their latest contexts. */
  *open(): IterableIterator<[Session, RequestContext]> {
    for (const [session, context] of this.#contexts) {
      if (this.#isOpen(session)) yield [session, context];
      else this.#forget(session);
    }
  }

  #forget(session: Session): void {
    this.#contexts.delete(session);
    if (session === this.#lastSession) this.#lastSession = this.#lastContext = undefined;
  }
}

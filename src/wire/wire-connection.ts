import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createPlannedRequestContext, wholeContextOf, type ContextPlan, type RequestContext, type RequestContextInput } from '../core/context.js';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { Catalog } from '../adapter/catalog.js';
import { contextPlanFor } from '../adapter/context-plan.js';
import { resolveRequestFlags } from '../adapter/flag-resolution.js';
import type { GatedSession, GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { ListKind } from '../adapter/list-changes.js';
import type { PolicyView } from '../adapter/policy-view.js';
import type { Overlay } from './overlay.js';
import { ProgressRelay } from './progress-relay.js';
import { SharedSnapshots, type UpstreamSnapshot } from './snapshot.js';
import { forwardRequest, upstreamLists, type ForwardOptions } from './upstream.js';
import { answerList, kindsOfList, listKinds, visibleListChanged } from './wire-lists.js';
import { WireRouter, type WireRequest } from './wire-routing.js';

/** What the wire binding needs from the downstream side of one session. */
export interface WireSessionHooks {
  /** Sends `notifications/<list>/list_changed` to the session's client. */
  notify(list: ListKind): Promise<void>;
  isOpen(): boolean;
}

/**
 * The wire binding on one upstream connection: it keeps the upstream's whole lists (refreshed on
 * its list_changed), answers lists filtered and paginated with the gate's own cursors, forwards
 * calls, gets, reads, subscriptions and completions of visible primitives, and answers hidden
 * ones as the upstream answers a name nobody registered. Nothing naming a hidden primitive is
 * sent upstream.
 */
export class WireConnection implements GatedSession {
  readonly client: Client;
  readonly ready: Promise<void>;
  readonly #runtime: GateRuntime;
  readonly #snapshots: SharedSnapshots;
  readonly #hooks: WireSessionHooks;
  readonly #router: WireRouter;
  readonly #progress: ProgressRelay;
  #snapshot: UpstreamSnapshot | undefined;
  /** The snapshot requests wait for: the one being fetched while a refresh runs, so a new primitive is never forwarded undecided. */
  #pending: Promise<UpstreamSnapshot>;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  /** The latest request's context: what a refresh compares visible lists for. */
  #lastContext: RequestContext | undefined;
  #planned: { readonly view: PolicyView; readonly catalog: Catalog; readonly plan: ContextPlan } | undefined;

  /** `snapshots`: the gate's, shared by its connections (one for this connection alone by default). */
  constructor(client: Client, runtime: GateRuntime, overlay: Overlay, hooks: WireSessionHooks, snapshots = new SharedSnapshots(overlay, runtime.settings)) {
    this.client = client;
    this.#runtime = runtime;
    this.#snapshots = snapshots;
    this.#hooks = hooks;
    this.#router = new WireRouter(client, runtime, overlay, (request, input) => this.#begin(request, input));
    this.#progress = new ProgressRelay(client);
    this.#pending = this.#fetch();
    this.ready = this.#pending.then(() => undefined);
    const refresh = () => void this.refresh().catch((error: unknown) => runtime.settings.reportError(error instanceof Error ? error : new Error(String(error))));
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
    client.setNotificationHandler(PromptListChangedNotificationSchema, refresh);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh);
  }

  /** The catalog in force now (the last one fetched). */
  catalog(): Catalog {
    return this.#snapshot?.catalog ?? emptyCatalog;
  }

  isOpen(): boolean {
    return this.#hooks.isOpen();
  }

  async notify(list: ListKind): Promise<void> {
    if (this.isOpen()) await this.#hooks.notify(list);
  }

  /**
   * Re-reads the upstream's lists (after its list_changed), then tells the downstream client
   * about each list whose visible part changed for the context of its latest request. A refresh
   * asked for while one runs runs once more after it.
   */
  refresh(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const run = async (): Promise<void> => {
      do {
        this.#refreshAgain = false;
        const before = this.#snapshot;
        this.#pending = this.#fetch();
        let after: UpstreamSnapshot;
        try {
          after = await this.#pending;
        } catch (error) {
          // A failed refresh leaves the lists as they were, rather than failing every request from now on.
          if (before) this.#pending = Promise.resolve(before);
          throw error;
        }
        if (before) await this.#notifyChanged(before, after);
      } while (this.#refreshAgain);
    };
    this.#refreshing = run().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /** Answers one downstream request: gated, forwarded, or as for an unknown name. */
  async handle(request: WireRequest, input: RequestContextInput, options: ForwardOptions = {}): Promise<unknown> {
    const { onprogress, ...rest } = options;
    if (onprogress === undefined) return this.#handle(request, input, rest);
    const tracked = this.#progress.track(request.params, onprogress);
    try {
      return await this.#handle({ ...request, params: tracked.params }, input, rest);
    } finally {
      tracked.release();
    }
  }

  async #handle(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const { method, params } = request;
    const listKind = listKinds.get(method);
    if (listKind !== undefined) return answerList(this.#runtime.settings, this.#snapshots, await this.#begin(request, input), listKind, params);
    switch (method) {
      case 'tools/call':
        return this.#router.callTool(request, input, options);
      case 'prompts/get':
        return this.#router.namedPrompt(request, input, options, params?.['name']);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.#router.resource(request, input, options);
      case 'completion/complete':
        return this.#router.completion(request, input, options);
      default:
        return forwardRequest(this.client, method, params, options);
    }
  }

  async #fetch(): Promise<UpstreamSnapshot> {
    const snapshot = await this.#snapshots.fetch(this.client);
    for (const error of snapshot.catalog.errors) this.#runtime.settings.reportError(error);
    this.#snapshot = snapshot;
    return snapshot;
  }

  async #begin(request: WireRequest, input: RequestContextInput): Promise<GatedRequest & { snapshot: UpstreamSnapshot }> {
    const snapshot = await this.#pending;
    const view = this.#runtime.currentView();
    const { catalog } = snapshot;
    let planned = this.#planned;
    if (planned === undefined || planned.view !== view || planned.catalog !== catalog) {
      this.#planned = planned = { view, catalog, plan: contextPlanFor(view, catalog, this.#runtime.settings) };
    }
    const context = createPlannedRequestContext(input, planned.plan);
    this.#lastContext = context;
    this.#runtime.sessions.observe(this, context);
    // Flags hook: the flags this policy reads, resolved before anything is decided (and kept for the session).
    const gated = await resolveRequestFlags({ view, catalog, context, requestId: request.id, snapshot }, this.#runtime.settings.flags);
    if (gated.context !== context) {
      this.#runtime.sessions.refresh(this, gated.context);
      this.#lastContext = gated.context; // flags hook: an upstream list_changed is judged on the session's flags, not their defaults
    }
    return gated;
  }

  /**
   * The keys (names; URIs for resources) of the primitives of one kind this request may see, in
   * the upstream's order, with no decision event: for a binding that must rewrite an answer in
   * which the upstream names its primitives (src/lowlevel/fastmcp.ts).
   */
  async visibleKeys(kind: PrimitiveKind, input: RequestContextInput): Promise<string[]> {
    const gated = await this.#begin({ method: upstreamLists[kind].method }, input);
    return gated.view.visibleEntries(gated.catalog, kind, gated.context, gated.view.cacheKey(gated.catalog, gated.context)).map((entry) => entry.key);
  }

  /**
   * The resource URIs this request may see among those it names, each decided and recorded as a
   * read of it is (a 2026-07-28 listen's subscriptions, src/proxy/stateless-listen.ts). Like any
   * request, it is what the connection's lists are decided on from then on.
   */
  visibleUris(request: WireRequest, input: RequestContextInput, uris: readonly string[]): Promise<ReadonlySet<string>> {
    return this.#router.visibleUris(request, input, uris);
  }

  /** The upstream's own list item of this kind and registry key (name; URI for resources) in the lists now, hidden or not. */
  listedItem(kind: PrimitiveKind, key: string): Readonly<Record<string, unknown>> | undefined {
    return this.#snapshot?.itemsOf(kind).get(key);
  }

  /**
   * Whether a notification naming this resource (resources/updated) may reach the session:
   * decided on the context of its latest request, hidden when there is none.
   */
  showsResource(uri: string): boolean {
    const kept = this.#lastContext;
    const snapshot = this.#snapshot;
    if (kept === undefined || snapshot === undefined) return false;
    try {
      const context = wholeContextOf(kept);
      const gated = { view: this.#runtime.currentView(), catalog: snapshot.catalog, context, requestId: undefined, snapshot };
      return this.#router.routeUri(gated, uri, () => context).to === 'sdk';
    } catch {
      return false;
    }
  }

  async #notifyChanged(before: UpstreamSnapshot, after: UpstreamSnapshot): Promise<void> {
    const kept = this.#lastContext;
    // A session that never asked for anything has no lists to be told about.
    if (kept === undefined) return;
    let context: RequestContext | undefined;
    try {
      context = wholeContextOf(kept);
    } catch {
      context = undefined;
    }
    const view = this.#runtime.currentView();
    for (const list of Object.keys(kindsOfList) as ListKind[]) {
      const changed = visibleListChanged(this.#snapshots, view, list, before, after, context);
      if (changed) await this.notify(list);
    }
  }
}

const emptyCatalog: Catalog = { version: 0, get: () => undefined, entries: () => [], toolCandidates: () => undefined, errors: [] };

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  createPlannedRequestContext,
  createPrimitiveMetadata,
  wholeContext,
  wholeContextOf,
  type ContextPlan,
  type PrimitiveKind,
  type RequestContext,
  type RequestContextInput,
} from '../core/context.js';
import type { Catalog } from '../adapter/catalog.js';
import { contextPlanFor } from '../adapter/context-plan.js';
import { resolveRequestFlags } from '../adapter/flag-resolution.js';
import { flagFallbacksOf, withFlagValues } from '../core/flag-values.js';
import type { GatedSession, GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { ListKind } from '../adapter/list-changes.js';
import { pageOf, type ListCounts, type ListItem } from '../adapter/list-items.js';
import type { PolicyView } from '../adapter/policy-view.js';
import { resourceCandidates, routePrompt, routeResourceRead, routeTemplateCompletion, routeToolCall, type Route } from '../adapter/routing.js';
import type { Overlay } from './overlay.js';
import { ProgressRelay } from './progress-relay.js';
import { RelayedError } from './relayed-error.js';
import { SharedSnapshots, type UpstreamSnapshot } from './snapshot.js';
import { answerAs, createProbeToken, probeName, probeUri } from './unknown-probe.js';
import { forwardRequest, upstreamLists, type ForwardOptions } from './upstream.js';

/** What the wire binding needs from the downstream side of one session. */
export interface WireSessionHooks {
  /** Sends `notifications/<list>/list_changed` to the session's client. */
  notify(list: ListKind): Promise<void>;
  isOpen(): boolean;
}

/** One downstream request, as JSON-RPC carries it. */
export interface WireRequest {
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
  readonly id?: string | number | undefined;
}

const listKinds: Readonly<Record<string, PrimitiveKind>> = {
  'tools/list': 'tool',
  'prompts/list': 'prompt',
  'resources/list': 'resource',
  'resources/templates/list': 'resourceTemplate',
};

const kindsOfList: Readonly<Record<ListKind, readonly PrimitiveKind[]>> = { tools: ['tool'], prompts: ['prompt'], resources: ['resource', 'resourceTemplate'] };

/** The SDK's error for a cursor this gate did not issue (the code and text of SDK 1.32's, which mcp-gate/sdk answers too). */
const invalidCursor = () => new RelayedError(-32602, 'Invalid cursor');

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
  readonly #overlay: Overlay;
  readonly #snapshots: SharedSnapshots;
  readonly #hooks: WireSessionHooks;
  readonly #probeToken = createProbeToken();
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
    this.#overlay = overlay;
    this.#snapshots = snapshots;
    this.#hooks = hooks;
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
    const listKind = listKinds[method];
    if (listKind !== undefined) return this.#list(await this.#begin(request, input), listKind, params);
    switch (method) {
      case 'tools/call':
        return this.#callTool(request, input, options);
      case 'prompts/get':
        return this.#namedPrompt(request, input, options, params?.['name']);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.#resource(request, input, options);
      case 'completion/complete':
        return this.#completion(request, input, options);
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

  #list(gated: GatedRequest & { snapshot: UpstreamSnapshot }, kind: PrimitiveKind, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const listError = gated.snapshot.listError(kind);
    if (listError) throw listError;
    const { field } = upstreamLists[kind];
    const listed = this.#visibleItems(gated, kind, gated.snapshot);
    const cursor = params?.['cursor'];
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidCursor();
    const page = pageOf(this.#runtime.settings.paginator, gated, kind, listed.items, cursor, gated.view.cacheKey(gated.catalog, gated.context), invalidCursor);
    this.#runtime.settings.decisions.list(gated, listed.counts);
    return page.nextCursor === undefined ? { [field]: page.items } : { [field]: page.items, nextCursor: page.nextCursor };
  }

  #visibleItems(gated: GatedRequest, kind: PrimitiveKind, snapshot: UpstreamSnapshot): { items: readonly ListItem[]; counts: ListCounts } {
    const visible = gated.view.visibleEntries(snapshot.catalog, kind, gated.context, gated.view.cacheKey(snapshot.catalog, gated.context));
    return this.#snapshots.visibleItems(snapshot, kind, visible);
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

  async #callTool(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const name = request.params?.['name'];
    // Without a name it names no primitive: the upstream rejects it as it would.
    if (typeof name !== 'string') return forwardRequest(this.client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.#unlisted(gated, routeToolCall(gated, name), 'tool', name, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'entry') return this.#forwardAs(request, options, 'name', route.entry.key, name);
    if (route.to === 'hidden') return this.#forwardAs(request, options, 'name', probeName(this.#probeToken), name);
    return forwardRequest(this.client, request.method, request.params, options);
  }

  async #namedPrompt(request: WireRequest, input: RequestContextInput, options: ForwardOptions, name: unknown): Promise<unknown> {
    if (typeof name !== 'string') return forwardRequest(this.client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.#unlisted(gated, routePrompt(gated, name), 'prompt', name, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forwardRequest(this.client, request.method, request.params, options);
    return this.#forwardAs(request, options, 'name', probeName(this.#probeToken), name);
  }

  /**
   * resources/read, subscribe and unsubscribe. The URI is decided as written and as a URL parser
   * normalizes it (an upstream may normalize before looking up). A URI the upstream would serve
   * from a hidden resource or template is hidden, even when another visible template matches
   * too: the upstream, not the gate, picks what serves it.
   */
  async #resource(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const uri = request.params?.['uri'];
    if (typeof uri !== 'string') return forwardRequest(this.client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.#routeUri(gated, uri, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forwardRequest(this.client, request.method, request.params, options);
    return this.#forwardAs(request, options, 'uri', probeUri(this.#probeToken, uri), uri);
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
      return this.#routeUri(gated, uri, () => context).to === 'sdk';
    } catch {
      return false;
    }
  }

  #routeUri(gated: GatedRequest & { snapshot: UpstreamSnapshot }, uri: string, decideOn: () => RequestContext): Route {
    const { catalog, templates } = gated.snapshot;
    let route: Route | undefined;
    for (const form of uriForms(uri)) {
      const formRoute = this.#unlisted(gated, routeResourceRead(gated, form, templates), 'resource', form, decideOn);
      if (formRoute.to === 'sdk') {
        route ??= formRoute;
        continue;
      }
      // `entry` names the visible template routing would fall back to; the hidden pick is what the upstream would serve.
      const { resource, matching } = resourceCandidates(catalog, form, templates);
      return { to: 'hidden', entry: formRoute.to === 'hidden' ? formRoute.entry : (resource ?? matching[0]) };
    }
    return route ?? { to: 'sdk', entry: undefined };
  }

  async #completion(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | null | undefined;
    const forward = () => forwardRequest(this.client, request.method, request.params, options);
    let route: Route;
    let field: 'name' | 'uri';
    let requested: string;
    let gated: GatedRequest;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      gated = await this.#begin(request, input);
      [route, field, requested] = [this.#unlisted(gated, routePrompt(gated, ref.name), 'prompt', ref.name, () => wholeContextFrom(input, gated.context)), 'name', ref.name];
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      gated = await this.#begin(request, input);
      // `entry`: a visible template behind a hidden one with the same URI template; the upstream would complete with the hidden one.
      const templateRoute = routeTemplateCompletion(gated, ref.uri);
      const firstTemplate = gated.catalog.entries('resourceTemplate').find((entry) => entry.metadata.uriTemplate === ref.uri);
      route = templateRoute.to === 'entry' ? { to: 'hidden', entry: firstTemplate } : templateRoute;
      [field, requested] = ['uri', ref.uri];
    } else {
      return forward();
    }
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forward();
    const probe = field === 'name' ? probeName(this.#probeToken) : probeUri(this.#probeToken, requested);
    return answerAs(() => forwardRequest(this.client, request.method, { ...request.params, ref: { ...ref, [field]: probe } }, options), probe, requested);
  }

  /** The request upstream with one parameter swapped (a versioned tool's key, or a probe), answered with the requested name. */
  #forwardAs(request: WireRequest, options: ForwardOptions, field: string, sent: string, requested: string): Promise<unknown> {
    // A visible primitive under its own name (most calls): nothing to swap, so the answer is not walked.
    if (sent === requested) return forwardRequest(this.client, request.method, request.params, options);
    return answerAs(() => forwardRequest(this.client, request.method, { ...request.params, [field]: sent }, options), sent, requested);
  }

  /**
   * A name the upstream did not list is decided as a primitive of that name annotated by the
   * overlay alone: an upstream that adds a tool without announcing it cannot have it called past
   * a policy that would hide it. Decided on the whole context, as the plan covers only the catalog.
   */
  #unlisted(gated: GatedRequest, route: Route, kind: PrimitiveKind, key: string, decideOn: () => RequestContext): Route {
    if (route.to !== 'sdk' || route.entry !== undefined) return route;
    const metadata = createPrimitiveMetadata(kind, key, this.#overlay.annotationFor(kind, key) ?? {}, kind === 'resource' ? { uri: key } : {});
    let allowed: boolean;
    try {
      allowed = gated.view.policy.evaluate(decideOn(), metadata) === true;
    } catch {
      allowed = false;
    }
    return allowed ? route : { to: 'hidden', entry: undefined };
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
      const changed =
        context === undefined ||
        kindsOfList[list].some((kind) => JSON.stringify(this.#publicList(view, before, kind, context)) !== JSON.stringify(this.#publicList(view, after, kind, context)));
      if (changed) await this.notify(list);
    }
  }

  #publicList(view: PolicyView, snapshot: UpstreamSnapshot, kind: PrimitiveKind, context: RequestContext): readonly ListItem[] {
    return this.#visibleItems({ view, catalog: snapshot.catalog, context, requestId: undefined }, kind, snapshot).items;
  }
}

/** The whole context of a request, for deciding on a primitive its plan was not made for; with the flags resolved for `planned`. */
function wholeContextFrom(input: RequestContextInput, planned: RequestContext): RequestContext {
  const whole = createPlannedRequestContext(input, wholeContext);
  return planned.flags === undefined ? whole : withFlagValues(whole, planned.flags, flagFallbacksOf(planned));
}

/** The URI as written and as the WHATWG URL parser normalizes it, once each. */
function uriForms(uri: string): string[] {
  const normalized = URL.canParse(uri) ? new URL(uri).href : uri;
  return normalized === uri ? [uri] : [uri, normalized];
}

const emptyCatalog: Catalog = { version: 0, get: () => undefined, entries: () => [], toolCandidates: () => undefined, errors: [] };

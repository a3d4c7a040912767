import type { ContextPlan, RequestContext } from '../core/context.js';
import type { Catalog, PrimitiveSource } from './catalog.js';
import { contextPlanFor } from './context-plan.js';
import { FlagRequests } from './flag-requests.js';
import type { GateSettings } from './gate-options.js';
import type { GatedSession, GateRuntime } from './gate-runtime.js';
import type { GatedRequest, StoredHandler } from './gated-request.js';
import type { ListKind } from './list-changes.js';
import type { PolicyView } from './policy-view.js';
import { gateHandlerMap, handlerMapOf, notifyListChanged, RegistryTracker, type GatedMethod, type ListChangeNotifier, type RegistrationObserver } from './server-hooks.js';

/** The gated form of every gated method, as one binding writes them for its installation and its SDK's handlers. */
export type GatedHandlerTable<Installation, SdkContext> = Readonly<
  Record<GatedMethod, (installation: Installation, sdkHandler: StoredHandler<SdkContext>) => StoredHandler<SdkContext>>
>;

/** What an installation needs of the McpServer it gates (the same members in SDK 1.32 and 2.4). */
export interface GatedServer {
  isConnected(): boolean;
  readonly server: ListChangeNotifier;
}

/**
 * The gate's presence on one McpServer, shared by the SDK bindings: it observes registrations
 * (a catalog rebuilt only after the SDK reported a change), wraps the server's request handlers
 * (present and future) with the binding's table, and starts each gated request with one policy
 * view, one catalog and a context holding what that pair reads. It never writes the SDK's
 * registries or calls enable/disable/update/remove on anything. A binding adds how its requests
 * become contexts, and its SDK's answers.
 */
export abstract class GateInstallation<Server extends GatedServer, SdkContext, Request, Settings extends GateSettings = GateSettings> implements GatedSession {
  readonly server: Server;
  readonly settings: Settings;
  readonly #runtime: GateRuntime<Settings>;
  readonly #registry: RegistryTracker;
  /** The plan of the last request and the view and catalog it belongs to (both change rarely): one comparison instead of two WeakMap lookups per request. */
  #planned: { readonly view: PolicyView; readonly catalog: Catalog; readonly plan: ContextPlan } | undefined;
  /** Requests whose flags were resolved before their handler ran (flag-requests.ts). */
  readonly #flagRequests: FlagRequests<SdkContext>;

  /** Reads the registry once (an invalid annotation throws here, naming primitive and field) and starts observing it. */
  protected constructor(server: Server, runtime: GateRuntime<Settings>, readSources: () => Iterable<PrimitiveSource>, observer?: RegistrationObserver) {
    this.server = server;
    this.settings = runtime.settings;
    this.#runtime = runtime;
    this.#registry = new RegistryTracker(readSources, runtime.settings);
    this.#registry.observe(server, observer);
    this.#flagRequests = new FlagRequests(
      runtime.settings.flags,
      (method, sdkContext) => this.begin(method, sdkContext),
      (gated) => runtime.sessions.refresh(this, gated.context),
    );
  }

  /** The binding's start of a gated request from its SDK's per-request context (asks `resolvedWithFlags` first). */
  abstract begin(method: string, sdkContext: SdkContext): GatedRequest;

  /** The request begun for this SDK context with its flags resolved, while its handler runs (flag-requests.ts). */
  protected resolvedWithFlags(sdkContext: SdkContext): GatedRequest | undefined {
    return this.#flagRequests.resolvedFor(sdkContext);
  }

  /**
   * Wraps the server's handlers (its protocol's method → handler map, checked at install by the
   * binding's readInternals): the binding calls this last in its constructor, once everything
   * its handlers use is set.
   */
  protected gateHandlers(table: GatedHandlerTable<this, SdkContext>): void {
    gateHandlerMap(handlerMapOf<StoredHandler<SdkContext>>(this.server), (method, handler) => this.#flagRequests.wrap(method, table[method](this, handler)));
  }

  /** The registrations as of now; rebuilt only after the SDK reported a change. */
  catalog(): Catalog {
    return this.#registry.catalog();
  }

  /** Marks the catalog stale (for registrations the SDK changed without notifying, such as SDK 1.32's dropped prompt `_meta`). */
  protected invalidateCatalog(): void {
    this.#registry.invalidate();
  }

  /** The policy in force now (a request holds its own view from `startRequest` on). */
  currentView(): PolicyView {
    return this.#runtime.currentView();
  }

  /** The binding's translation: one request of `method` as the core's context, holding what `plan` asks for. */
  protected abstract contextOf(method: string, request: Request, plan: ContextPlan): RequestContext;

  /**
   * Starts one gated request: the view and catalog it keeps from start to end, and its context,
   * built by the binding for the plan of that pair. A request of a session (one setPolicy may
   * have to tell about a change) records its context for the session.
   */
  protected startRequest(method: string, request: Request, requestId: string | number | undefined, inSession: boolean): GatedRequest {
    const view = this.#runtime.currentView();
    const catalog = this.catalog();
    let planned = this.#planned;
    if (planned === undefined || planned.view !== view || planned.catalog !== catalog) {
      this.#planned = planned = { view, catalog, plan: contextPlanFor(view, catalog, this.settings) };
    }
    const context = this.contextOf(method, request, planned.plan);
    if (inSession) this.#runtime.sessions.observe(this, context);
    return { view, catalog, context, requestId };
  }

  isOpen(): boolean {
    return this.server.isConnected();
  }

  async notify(list: ListKind): Promise<void> {
    if (this.isOpen()) await notifyListChanged(this.server.server, list, this.settings.reportError);
  }
}

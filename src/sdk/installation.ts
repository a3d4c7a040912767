import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ContextPlan } from '../core/context.js';
import type { PolicyView } from '../adapter/policy-view.js';
import type { Catalog } from '../adapter/catalog.js';
import type { GateSettings } from '../adapter/gate-options.js';
import type { GatedSession, GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { ListKind } from '../adapter/list-changes.js';
import { contextPlanFor } from '../adapter/context-plan.js';
import { FlagRequests } from '../adapter/flag-requests.js';
import { gateHandlerMap, notifyListChanged, RegistryTracker } from '../adapter/server-hooks.js';
import { gatedHandlerFactories } from './gated-handlers.js';
import { createContextBuilder } from './request-context.js';
import { readHandlerMap, readInternals, readSources, type McpServerInternals, type SdkExtra } from './server-internals.js';

/**
 * The gate's presence on one McpServer. It wraps the server's request handlers (present and
 * future) and observes registrations; it never writes the SDK's registries or calls
 * enable/disable/update/remove on anything.
 */
export class Installation implements GatedSession {
  readonly server: McpServer;
  readonly internals: McpServerInternals;
  readonly settings: GateSettings;
  readonly #runtime: GateRuntime;
  readonly #contextFor: ReturnType<typeof createContextBuilder>;
  /** SDK 1.32's registerPrompt drops `config._meta`; the gate keeps it, keyed by the registration. */
  readonly #capturedPromptMeta = new WeakMap<object, unknown>();
  readonly #registry: RegistryTracker;
  /** The plan of the last request and the view and catalog it belongs to (both change rarely): one comparison instead of two WeakMap lookups per request. */
  #planned: { readonly view: PolicyView; readonly catalog: Catalog; readonly plan: ContextPlan } | undefined;
  /** Requests whose flags were resolved before their handler ran (flag-requests.ts). */
  readonly #flagRequests: FlagRequests<SdkExtra>;

  constructor(server: McpServer, runtime: GateRuntime) {
    this.server = server;
    this.internals = readInternals(server);
    const handlers = readHandlerMap(server);
    this.settings = runtime.settings;
    this.#runtime = runtime;
    this.#contextFor = createContextBuilder(server.server);
    const registry = (this.#registry = new RegistryTracker(() => readSources(this.internals, this.#capturedPromptMeta), runtime.settings));
    registry.observe(server, (kind, _key, meta, registered) => {
      if (kind !== 'prompt' || meta === undefined || registered === null || typeof registered !== 'object') return;
      this.#capturedPromptMeta.set(registered, meta);
      registry.invalidate();
    });
    // Flags hook: each gated handler runs after its request's flags are resolved.
    this.#flagRequests = new FlagRequests(
      runtime.settings.flags,
      (method, extra) => this.begin(method, extra),
      (gated) => runtime.sessions.refresh(this, gated.context),
    );
    gateHandlerMap(handlers, (method, handler) => this.#flagRequests.wrap(method, gatedHandlerFactories[method](this, handler)));
  }

  /** The registrations as of now; rebuilt only after the SDK reported a change. */
  catalog(): Catalog {
    return this.#registry.catalog();
  }

  begin(method: string, extra: SdkExtra): GatedRequest {
    const resolved = this.#flagRequests.resolvedFor(extra); // flags hook
    if (resolved !== undefined) return resolved;
    const view = this.#runtime.currentView();
    const catalog = this.catalog();
    let planned = this.#planned;
    if (planned === undefined || planned.view !== view || planned.catalog !== catalog) {
      this.#planned = planned = { view, catalog, plan: contextPlanFor(view, catalog, this.settings) };
    }
    const context = this.#contextFor(method, extra, planned.plan);
    this.#runtime.sessions.observe(this, context);
    return { view, catalog, context, requestId: extra.requestId };
  }

  isOpen(): boolean {
    return this.server.isConnected();
  }

  async notify(list: ListKind): Promise<void> {
    if (this.isOpen()) await notifyListChanged(this.server.server, list, this.settings.reportError);
  }
}

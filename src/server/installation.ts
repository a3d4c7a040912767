import type { McpRequestContext, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { wholeContext, wholeContextOf, type RequestContext } from '../core/context.js';
import type { Policy } from '../core/policy/types.js';
import type { Catalog } from '../adapter/catalog.js';
import { readEnvelope } from '../adapter/envelope.js';
import type { GatedSession, GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { ListKind } from '../adapter/list-changes.js';
import { contextPlanFor } from '../adapter/context-plan.js';
import { gateHandlerMap, notifyListChanged, RegistryTracker } from '../adapter/server-hooks.js';
import type { ServerGateSettings } from './gate-settings.js';
import { gatedHandlerFactories } from './gated-handlers.js';
import { gatePreDispatchChecks } from './pre-dispatch.js';
import { buildRequestContext, type RequestSources } from './request-context.js';
import { readHandlerMap, readInternals, readSources, type McpServerInternals } from './server-internals.js';

/**
 * The gate's presence on one McpServer. It wraps the server's request handlers (present and
 * future) and its two pre-dispatch hooks, and observes registrations; it never writes the SDK's
 * registries or calls enable/disable/update/remove on anything.
 */
export class Installation implements GatedSession {
  readonly server: McpServer;
  readonly internals: McpServerInternals;
  readonly settings: ServerGateSettings;
  /** The `createMcpHandler` factory's context, when the server was built per request. */
  readonly factoryRequest: McpRequestContext | undefined;
  readonly #runtime: GateRuntime<ServerGateSettings>;
  readonly #registry: RegistryTracker;
  /**
   * Where this session's latest request came from: a new policy decides what the session sees
   * from the whole of it (wholeContext), while each request copies only what its policy reads.
   */
  #latestSources: RequestSources | undefined;

  constructor(server: McpServer, runtime: GateRuntime<ServerGateSettings>, factoryRequest: McpRequestContext | undefined) {
    this.server = server;
    this.internals = readInternals(server);
    const handlers = readHandlerMap(server);
    this.settings = runtime.settings;
    this.factoryRequest = factoryRequest;
    this.#runtime = runtime;
    this.#registry = new RegistryTracker(() => readSources(this.internals), runtime.settings);
    this.#registry.observe(server);
    gateHandlerMap(handlers, (method, handler) => gatedHandlerFactories[method](this, handler));
    gatePreDispatchChecks(this);
  }

  /** The registrations as of now; rebuilt only after the SDK reported a change. */
  catalog(): Catalog {
    return this.#registry.catalog();
  }

  /** A handler's request: its envelope, its HTTP request and auth from the SDK's per-request context. */
  begin(method: string, ctx: ServerContext): GatedRequest {
    const sources: RequestSources = {
      method,
      envelope: readEnvelope(ctx.mcpReq.envelope),
      httpRequest: ctx.http?.req ?? this.factoryRequest?.requestInfo,
      authInfo: ctx.http?.authInfo ?? this.factoryRequest?.authInfo,
      sessionId: ctx.sessionId,
    };
    return this.beginWith(sources, ctx.mcpReq.id);
  }

  /** A request built from given sources; pre-dispatch hooks have no JSON-RPC id at hand. */
  beginWith(sources: RequestSources, requestId?: string | number): GatedRequest {
    const view = this.#runtime.currentView();
    const catalog = this.catalog();
    const context = buildRequestContext(sources, this.server, contextPlanFor(view, catalog, this.settings));
    // Only 2025-era sessions can be told about a policy change; stateless requests are not tracked.
    if (sources.sessionId !== undefined) {
      this.#latestSources = sources;
      this.#runtime.sessions.observe(this, context);
    }
    return { view, catalog, context, requestId };
  }

  wholeContext(kept: RequestContext): RequestContext {
    return this.#latestSources === undefined ? wholeContextOf(kept) : buildRequestContext(this.#latestSources, this.server, wholeContext);
  }

  currentPolicy(): Policy {
    return this.#runtime.currentView().policy;
  }

  isOpen(): boolean {
    return this.server.isConnected();
  }

  async notify(list: ListKind): Promise<void> {
    if (this.isOpen()) await notifyListChanged(this.server.server, list, this.settings.reportError);
  }
}

import type { McpRequestContext, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { PrimitiveAnnotation, PrimitiveKind, RequestContext } from '../core/context.js';
import { joinPath } from '../core/errors.js';
import type { Policy } from '../core/policy/types.js';
import { assertCatalogValid, buildCatalog, type Catalog } from '../adapter/catalog.js';
import { readEnvelope } from '../adapter/envelope.js';
import type { ListKind } from '../adapter/list-changes.js';
import { describePrimitive, gateMetaKey, parseAnnotation, readGateMeta } from '../adapter/metadata.js';
import type { PolicyView } from '../adapter/policy-view.js';
import type { GateRuntime, GateSettings } from './gate-settings.js';
import { gatedHandlerFactories } from './gated-handlers.js';
import { gatePreDispatchChecks } from './pre-dispatch.js';
import { buildRequestContext, type RequestSources } from './request-context.js';
import { readHandlerMap, readInternals, readSources, type McpServerInternals, type StoredHandler } from './server-internals.js';

/** What one gated request works with; captured once, so the whole response uses one policy. */
export interface GatedRequest {
  readonly view: PolicyView;
  readonly catalog: Catalog;
  readonly context: RequestContext;
}

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * The gate's presence on one McpServer. It wraps the server's request handlers (present and
 * future) and its two pre-dispatch hooks, and observes registrations; it never writes the SDK's
 * registries or calls enable/disable/update/remove on anything.
 */
export class Installation {
  readonly server: McpServer;
  readonly internals: McpServerInternals;
  readonly settings: GateSettings;
  /** The `createMcpHandler` factory's context, when the server was built per request. */
  readonly factoryRequest: McpRequestContext | undefined;
  readonly #runtime: GateRuntime;
  readonly #parsedMeta = new WeakMap<object, PrimitiveAnnotation>();
  #registryVersion = 0;
  #catalog: Catalog | undefined;

  constructor(server: McpServer, runtime: GateRuntime, factoryRequest: McpRequestContext | undefined) {
    this.server = server;
    this.internals = readInternals(server);
    this.settings = runtime.settings;
    this.factoryRequest = factoryRequest;
    this.#runtime = runtime;
    const handlers = readHandlerMap(server);
    assertCatalogValid(this.catalog());
    this.#observeRegistrations();
    this.#gateHandlers(handlers);
    gatePreDispatchChecks(this);
  }

  /** The registrations as of now; rebuilt only after the SDK reported a change. */
  catalog(): Catalog {
    const current = this.#catalog;
    if (current && current.version === this.#registryVersion) return current;
    const settings = this.settings;
    const catalog = buildCatalog(readSources(this.internals), {
      version: this.#registryVersion,
      annotations: settings.annotations,
      versionSeparator: settings.versionSeparator,
      parsedMeta: this.#parsedMeta,
    });
    // Errors already thrown at install time are not news; later ones can only be reported.
    if (current) for (const error of catalog.errors) settings.reportError(error);
    this.#catalog = catalog;
    return catalog;
  }

  /** A handler's request: its envelope, its HTTP request and auth from the SDK's per-request context. */
  begin(method: string, ctx: ServerContext): GatedRequest {
    return this.beginWith({
      method,
      envelope: readEnvelope(ctx.mcpReq.envelope),
      httpRequest: ctx.http?.req ?? this.factoryRequest?.requestInfo,
      authInfo: ctx.http?.authInfo ?? this.factoryRequest?.authInfo,
      sessionId: ctx.sessionId,
    });
  }

  beginWith(sources: RequestSources): GatedRequest {
    const view = this.#runtime.currentView();
    const catalog = this.catalog();
    const context = buildRequestContext(sources, this.server);
    // Only 2025-era sessions can be told about a policy change; stateless requests are not tracked.
    if (sources.sessionId !== undefined) this.#runtime.sessions.observe(this, context);
    return { view, catalog, context };
  }

  currentPolicy(): Policy {
    return this.#runtime.currentView().policy;
  }

  isOpen(): boolean {
    return this.server.isConnected();
  }

  /** Tells this session's client that a list changed (because the policy did, not the registry). */
  async notify(list: ListKind): Promise<void> {
    if (!this.isOpen()) return;
    const server = this.server.server;
    try {
      if (list === 'tools') await server.sendToolListChanged();
      else if (list === 'prompts') await server.sendPromptListChanged();
      else await server.sendResourceListChanged();
    } catch (error) {
      this.settings.reportError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Every registration path and every update() ends in one of McpServer's send*ListChanged
   * methods, so counting those calls tells exactly when the catalog is stale. The register
   * methods are wrapped to validate the annotation before the SDK stores anything.
   */
  #observeRegistrations(): void {
    const server = this.server as unknown as Record<string, AnyFunction>;
    const bump = () => void this.#registryVersion++;
    for (const notifier of ['sendToolListChanged', 'sendPromptListChanged', 'sendResourceListChanged']) {
      const original = server[notifier]!;
      server[notifier] = function notifyAndInvalidate(this: unknown, ...args: unknown[]) {
        bump();
        return original.apply(this, args);
      };
    }
    const wrapRegister = (method: string, describe: (args: unknown[]) => [PrimitiveKind, string, unknown]) => {
      const original = server[method]!;
      server[method] = function registerValidated(this: unknown, ...args: unknown[]) {
        const [kind, key, meta] = describe(args);
        const raw = readGateMeta(meta);
        if (raw !== undefined) parseAnnotation(raw, describePrimitive(kind, key), joinPath('_meta', gateMetaKey));
        return original.apply(this, args);
      };
    };
    const configMeta = (config: unknown) => (config !== null && typeof config === 'object' ? (config as { _meta?: unknown })._meta : undefined);
    wrapRegister('registerTool', ([name, config]) => ['tool', String(name), configMeta(config)]);
    wrapRegister('registerPrompt', ([name, config]) => ['prompt', String(name), configMeta(config)]);
    wrapRegister('registerResource', ([name, uriOrTemplate, config]) =>
      typeof uriOrTemplate === 'string' ? ['resource', uriOrTemplate, configMeta(config)] : ['resourceTemplate', String(name), configMeta(config)],
    );
  }

  /**
   * Wraps the handlers installed now and, by intercepting the map's `set`, those the SDK installs
   * lazily later (tools on first registerTool, completion on the first completable argument).
   * Wrapping the stored entry keeps the SDK's own parsing and result validation in place, once.
   */
  #gateHandlers(handlers: Map<string, StoredHandler>): void {
    const set = handlers.set;
    const wrap = (method: string, handler: StoredHandler): StoredHandler => {
      const createGated = gatedHandlerFactories.get(method);
      return createGated ? createGated(this, handler) : handler;
    };
    for (const [method, handler] of handlers) set.call(handlers, method, wrap(method, handler));
    handlers.set = function setGated(method: string, handler: StoredHandler) {
      return set.call(this, method, wrap(method, handler));
    };
  }
}

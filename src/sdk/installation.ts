import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PrimitiveAnnotation, PrimitiveKind, RequestContext } from '../core/context.js';
import { assertCatalogValid, buildCatalog, type Catalog } from '../adapter/catalog.js';
import type { ListKind } from '../adapter/list-changes.js';
import { describePrimitive, gateMetaKey, parseAnnotation, readGateMeta } from '../adapter/metadata.js';
import type { PolicyView } from '../adapter/policy-view.js';
import { joinPath } from '../core/errors.js';
import type { GateRuntime, GateSettings } from './gate-settings.js';
import { gatedHandlerFactories } from './gated-handlers.js';
import { createContextBuilder } from './request-context.js';
import { readHandlerMap, readInternals, readSources, type McpServerInternals, type SdkExtra, type StoredHandler } from './server-internals.js';

/** What one gated request works with; captured once, so the whole response uses one policy. */
export interface GatedRequest {
  readonly view: PolicyView;
  readonly catalog: Catalog;
  readonly context: RequestContext;
}

type AnyFunction = (...args: unknown[]) => unknown;

/**
 * The gate's presence on one McpServer. It wraps the server's request handlers (present and
 * future) and observes registrations; it never writes the SDK's registries or calls
 * enable/disable/update/remove on anything.
 */
export class Installation {
  readonly server: McpServer;
  readonly internals: McpServerInternals;
  readonly settings: GateSettings;
  readonly #runtime: GateRuntime;
  readonly #contextFor: (method: string, extra: SdkExtra) => RequestContext;
  readonly #capturedPromptMeta = new WeakMap<object, unknown>();
  readonly #parsedMeta = new WeakMap<object, PrimitiveAnnotation>();
  #registryVersion = 0;
  #catalog: Catalog | undefined;

  constructor(server: McpServer, runtime: GateRuntime) {
    this.server = server;
    this.internals = readInternals(server);
    this.settings = runtime.settings;
    this.#runtime = runtime;
    this.#contextFor = createContextBuilder(server.server);
    const handlers = readHandlerMap(server);
    assertCatalogValid(this.catalog());
    this.#observeRegistrations();
    this.#gateHandlers(handlers);
  }

  /** The registrations as of now; rebuilt only after the SDK reported a change. */
  catalog(): Catalog {
    const current = this.#catalog;
    if (current && current.version === this.#registryVersion) return current;
    const settings = this.settings;
    const catalog = buildCatalog(readSources(this.internals, this.#capturedPromptMeta), {
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

  begin(method: string, extra: SdkExtra): GatedRequest {
    const view = this.#runtime.currentView();
    const catalog = this.catalog();
    const context = this.#contextFor(method, extra);
    this.#runtime.sessions.observe(this, context);
    return { view, catalog, context };
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
   * Every SDK registration path and every update() ends in one of the McpServer's
   * send*ListChanged methods, so counting those calls tells exactly when the catalog is stale.
   * The register methods are wrapped to validate the annotation before the SDK stores anything,
   * and registerPrompt to keep the `_meta` the SDK would drop.
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
      const capturedPromptMeta = this.#capturedPromptMeta;
      server[method] = function registerValidated(this: unknown, ...args: unknown[]) {
        const [kind, key, meta] = describe(args);
        const raw = readGateMeta(meta);
        if (raw !== undefined) parseAnnotation(raw, describePrimitive(kind, key), joinPath('_meta', gateMetaKey));
        const registered = original.apply(this, args);
        if (kind === 'prompt' && meta !== undefined && registered !== null && typeof registered === 'object') {
          capturedPromptMeta.set(registered, meta);
          bump();
        }
        return registered;
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

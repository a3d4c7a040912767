import type { PrimitiveKind } from '../core/primitive-metadata.js';
import { joinPath, PolicyOptionError } from '../core/errors.js';
import { assertCatalogValid, type Catalog, type PrimitiveSource } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import type { ListKind } from './list-changes.js';
import { describePrimitive, gateMetaKey, parseRegisteredAnnotation, readGateMeta } from './metadata.js';
import { missingRegistryField } from './registry-reader.js';
import { SharedCatalogs } from './shared-catalogs.js';

/*
 * McpServer 1.32 and 2.4 share the members wrapped here (register*, send*ListChanged, the
 * protocol's handler map, Server#send*ListChanged); they are reached by name, so this file needs
 * no SDK type. Each adapter checks at install time that its SDK still has them.
 */

type AnyFunction = (...args: unknown[]) => unknown;

/** Called after a registration went through, with what it registered and what the SDK returned. */
export type RegistrationObserver = (kind: PrimitiveKind, key: string, meta: unknown, registered: unknown) => void;

/**
 * A server's registrations as a catalog, rebuilt only after the registry changed. Every SDK
 * registration path and every `update()` (which `enable()`, `disable()` and `remove()` call)
 * ends in one of McpServer's `send*ListChanged` methods, in 1.32 and 2.4 alike, so counting
 * those calls tells exactly when the catalog is stale. A rebuild reads every registration's
 * `_meta` afresh: an annotation changed in place is seen at the next `update()`.
 */
export class RegistryTracker {
  readonly #readSources: () => Iterable<PrimitiveSource>;
  readonly #settings: GateSettings;
  readonly #catalogs: SharedCatalogs;
  #version = 0;
  #catalog: Catalog | undefined;
  /** Messages of the invalid annotations the current catalog hides, each reported once when it appeared. */
  #reportedErrors: ReadonlySet<string> = new Set();

  /** Reads the registry once and throws the first invalid annotation, naming primitive and field, before anything is wrapped. */
  constructor(readSources: () => Iterable<PrimitiveSource>, settings: GateSettings) {
    this.#readSources = readSources;
    this.#settings = settings;
    this.#catalogs = sharedCatalogsOf(settings);
    assertCatalogValid(this.catalog());
  }

  /** Starts watching the server: list-change notifiers mark the catalog stale, register methods validate annotations first. */
  observe(server: object, observer?: RegistrationObserver): void {
    const methods = server as Record<string, AnyFunction>;
    const invalidate = () => this.invalidate();
    for (const notifier of ['sendToolListChanged', 'sendPromptListChanged', 'sendResourceListChanged']) {
      const original = methods[notifier]!;
      methods[notifier] = function notifyAndInvalidate(this: unknown, ...args: unknown[]) {
        invalidate();
        return original.apply(this, args);
      };
    }
    const wrapRegister = (method: string, describe: (args: unknown[]) => [PrimitiveKind, string, unknown]) => {
      const original = methods[method]!;
      methods[method] = function registerValidated(this: unknown, ...args: unknown[]) {
        const [kind, key, meta] = describe(args);
        const raw = readGateMeta(meta);
        if (raw !== undefined) parseRegisteredAnnotation(raw, describePrimitive(kind, key), joinPath('_meta', gateMetaKey));
        const registered = original.apply(this, args);
        observer?.(kind, key, meta, registered);
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

  /** Marks the catalog stale; the next `catalog()` rebuilds it. */
  invalidate(): void {
    this.#version++;
  }

  /** The registrations as of now. */
  catalog(): Catalog {
    const current = this.#catalog;
    if (current && current.version === this.#version) return current;
    const settings = this.#settings;
    const catalog = this.#catalogs.catalog(this.#readSources(), this.#version);
    // Errors thrown at install time are not news; a later one is reported when it appears, not
    // again on every rebuild while it lasts (the entry stays hidden all that time).
    const errorMessages = new Set(catalog.errors.map((error) => error.message));
    if (current) for (const error of catalog.errors) if (!this.#reportedErrors.has(error.message)) settings.reportError(error);
    this.#reportedErrors = errorMessages;
    this.#catalog = catalog;
    return catalog;
  }
}

// One gate's settings are fixed and shared by all its installations, so they key its shared catalogs.
const sharedCatalogsBySettings = new WeakMap<GateSettings, SharedCatalogs>();

function sharedCatalogsOf(settings: GateSettings): SharedCatalogs {
  let catalogs = sharedCatalogsBySettings.get(settings);
  if (catalogs === undefined) sharedCatalogsBySettings.set(settings, (catalogs = new SharedCatalogs(settings)));
  return catalogs;
}

/** Every method that names or lists a primitive; anything else passes through untouched. */
export const gatedMethods = [
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
] as const;

export type GatedMethod = (typeof gatedMethods)[number];

const gatedMethodSet: ReadonlySet<string> = new Set(gatedMethods);

/**
 * Wraps the gated methods' handlers in the map now and, by intercepting the map's `set`, those
 * the SDK installs lazily later (tools on the first registerTool, completion on the first
 * completable argument). Wrapping the stored entry keeps the SDK's own parsing and result
 * validation in place, once.
 */
export function gateHandlerMap<Handler>(handlers: Map<string, Handler>, wrapGated: (method: GatedMethod, handler: Handler) => Handler): void {
  const set = handlers.set;
  const wrap = (method: string, handler: Handler) => (gatedMethodSet.has(method) ? wrapGated(method as GatedMethod, handler) : handler);
  for (const [method, handler] of handlers) set.call(handlers, method, wrap(method, handler));
  handlers.set = function setGated(method: string, handler: Handler) {
    return set.call(this, method, wrap(method, handler));
  };
}

/** Which SDK an adapter gates, for the error saying a server is not one it can gate. */
export interface SupportedSdk {
  /** `mcp-gate/sdk`, `mcp-gate/server`. */
  readonly adapter: string;
  /** `@modelcontextprotocol/sdk 1.32.x`. */
  readonly sdk: string;
}

/**
 * Checks the private members of an McpServer the gate reads or wraps: its four registries, the
 * given methods, and the protocol's method → handler map. They are private in both SDKs' types;
 * an SDK that renamed one fails here, at install, instead of serving ungated.
 */
export function checkServerInternals(server: object, supported: SupportedSdk, methods: readonly string[] = []): void {
  const candidate = server as Record<string, unknown>;
  const fail = (member: string) => new PolicyOptionError(`${supported.adapter}: this McpServer has no ${member}; ${supported.adapter} supports ${supported.sdk}`);
  const missing = missingRegistryField(server);
  if (missing !== undefined) throw fail(missing);
  for (const method of methods) if (typeof candidate[method] !== 'function') throw fail(method);
  if (!(handlerMapOf(server) instanceof Map)) throw fail('request handler map');
}

/** The protocol's method → handler map of a server `checkServerInternals` accepted. */
export function handlerMapOf<Handler>(server: object): Map<string, Handler> {
  return (server as { server?: { _requestHandlers?: unknown } }).server?._requestHandlers as Map<string, Handler>;
}

/** The low-level Server's notifiers (the same in both SDKs). */
export interface ListChangeNotifier {
  sendToolListChanged(): Promise<void>;
  sendPromptListChanged(): Promise<void>;
  sendResourceListChanged(): Promise<void>;
}

/** Sends `notifications/<list>/list_changed`; a failure is reported, never thrown into `setPolicy`. */
export async function notifyListChanged(server: ListChangeNotifier, list: ListKind, reportError: (error: Error) => void): Promise<void> {
  try {
    if (list === 'tools') await server.sendToolListChanged();
    else if (list === 'prompts') await server.sendPromptListChanged();
    else await server.sendResourceListChanged();
  } catch (error) {
    reportError(error instanceof Error ? error : new Error(String(error)));
  }
}

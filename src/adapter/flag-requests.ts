import type { FlagResolver } from './flag-resolution.js';
import { resolveRequestFlags } from './flag-resolution.js';
import type { GatedRequest } from './gated-request.js';

// The SDK bindings build a request's context synchronously (`Installation.begin`) inside each
// gated handler. With flags, a handler first waits for them: this wraps each gated handler so
// that the request is begun and its flags resolved before the handler runs, and the handler's
// own `begin` calls (keyed by the SDK's per-request `extra`/`ctx` object) get that one resolved
// request: one view, one catalog, one flag state for everything the request decides.

type Handler<Extra> = (request: never, extra: Extra) => Promise<unknown>;

/** The requests of one installation whose flags are resolved, while their handler runs. */
export class FlagRequests<Extra> {
  readonly #resolver: FlagResolver | undefined;
  readonly #begin: (method: string, extra: Extra) => GatedRequest;
  readonly #resolvedRequest: (gated: GatedRequest) => void;
  readonly #resolved = new WeakMap<object, GatedRequest>();

  /**
   * `begin`: the binding's own (which asks `resolvedFor` first). `onResolved`: told of each
   * request with its flags (the binding's session tracking keeps that context, so a policy swap
   * decides its list_changed on the session's flag values).
   */
  constructor(resolver: FlagResolver | undefined, begin: (method: string, extra: Extra) => GatedRequest, onResolved: (gated: GatedRequest) => void) {
    this.#resolver = resolver;
    this.#begin = begin;
    this.#resolvedRequest = onResolved;
  }

  /** The request begun for this `extra` with its flags resolved, while its handler runs. */
  resolvedFor(extra: Extra): GatedRequest | undefined {
    // Without a flag client nothing is ever resolved here: no lookup on every request's way.
    if (this.#resolver === undefined) return undefined;
    return typeof extra === 'object' && extra !== null ? this.#resolved.get(extra) : undefined;
  }

  /** The gated handler, run after its request's flags are resolved; as it is when the gate has no flag client. */
  wrap<Gated extends Handler<Extra>>(method: string, gated: Gated): Gated {
    const resolver = this.#resolver;
    if (resolver === undefined) return gated;
    const resolved = this.#resolved;
    const begin = this.#begin;
    const onResolved = this.#resolvedRequest;
    return async function resolveFlagsFirst(request: never, extra: Extra) {
      if (typeof extra !== 'object' || extra === null) return gated(request, extra);
      // Begun once here; the handler's begin gets this request (resolved, or as it is when the policy reads no flag).
      const begun = begin(method, extra);
      const withFlags = await resolveRequestFlags(begun, resolver);
      if (withFlags !== begun) onResolved(withFlags);
      resolved.set(extra, withFlags);
      try {
        return await gated(request, extra);
      } finally {
        resolved.delete(extra);
      }
    } as Gated;
  }
}

import type { RequestContext } from '../core/context.js';
import type { Catalog } from './catalog.js';
import type { PolicyView } from './policy-view.js';

/** What one gated request works with; captured once, so the whole response uses one policy and one registry. */
export interface GatedRequest {
  readonly view: PolicyView;
  readonly catalog: Catalog;
  readonly context: RequestContext;
  /** The JSON-RPC id of the request, for decision events; undefined where a hook has none. */
  readonly requestId: string | number | undefined;
}

/** A request as both SDKs store it before parsing: method and raw params. */
export interface JsonRpcRequest {
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
  readonly [key: string]: unknown;
}

/** A handler as both SDKs keep it in their handler map: the raw request and the SDK's per-request context in, result out. */
export type StoredHandler<SdkContext> = (request: JsonRpcRequest, sdkContext: SdkContext) => Promise<unknown>;

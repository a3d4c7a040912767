import type { JsonRpcRequest } from '../adapter/gated-request.js';
import { answerRenamed, unknownNameProbe } from '../adapter/renaming.js';
import { routeToolCall } from '../adapter/routing.js';
import { deniedError, toolErrorResult } from './denials.js';
import type { Installation } from './installation.js';
import type { SdkExtra, StoredHandler } from './server-internals.js';

/**
 * tools/call: resolve the public name to the registration this context may use, then let the SDK
 * do everything else (argument validation, task handling, result validation) exactly once.
 */
export function createGatedToolCall(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  // Not async: returning the SDK's promise directly saves the extra microtask hops of an async wrapper.
  return function gatedToolCall(request: JsonRpcRequest, extra: SdkExtra): Promise<unknown> {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, extra);
    const gated = installation.begin('tools/call', extra);
    const route = routeToolCall(gated, name);
    installation.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return sdkHandler(request, extra);
    if (route.to === 'entry') return callAs(sdkHandler, request, extra, route.entry.key, name);
    if (installation.settings.denied === 'explain' && route.entry !== undefined) {
      return Promise.resolve(toolErrorResult(deniedError('Tool', name, gated.view.explain(gated.context, route.entry)).message));
    }
    return callAs(sdkHandler, request, extra, unknownNameProbe, name);
  };
}

// A module function rather than a closure inside gatedToolCall: the closure (and the context
// holding request, extra and name) was allocated on every call, routed to the SDK or not.
function callAs(sdkHandler: StoredHandler, request: JsonRpcRequest, extra: SdkExtra, registryKey: string, publicName: string): Promise<unknown> {
  return answerRenamed(sdkHandler, { ...request, params: { ...request.params, name: registryKey } }, extra, registryKey, publicName);
}

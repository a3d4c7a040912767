import type { CatalogEntry } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import type { GatedRequest, JsonRpcRequest, StoredHandler } from './gated-request.js';
import { answerRenamed, unknownNameProbe } from './renaming.js';
import { routeToolCall } from './routing.js';

/** What the tools/call gate needs of an installation (both SDK bindings' installations are one). */
export interface ToolCallInstallation<SdkContext> {
  readonly settings: GateSettings;
  begin(method: string, sdkContext: SdkContext): GatedRequest;
}

/**
 * A binding's own answer for a hidden tool, before the SDK is asked about an unknown name: the
 * decision's sentence (`denied: 'explain'`), or -32021 for a missing capability (v2). Undefined
 * when the binding has none. `entry` is the registration hidden; undefined for a versioned
 * tool's internal key, which is simply unknown.
 */
export type HiddenToolAnswer<Installation> = (installation: Installation, gated: GatedRequest, entry: CatalogEntry | undefined, name: string) => Promise<unknown> | undefined;

/**
 * tools/call for every SDK binding: resolve the public name to the registration this request may
 * use, then let the SDK do everything else (request and argument validation, task handling,
 * result validation) exactly once. A hidden name is asked of the SDK as a name no registration
 * has (unknownNameProbe), and its answer shows the name the client asked for.
 */
export function createToolCallGate<SdkContext, Installation extends ToolCallInstallation<SdkContext>>(answerHidden: HiddenToolAnswer<Installation>) {
  return function createGatedToolCall(installation: Installation, sdkHandler: StoredHandler<SdkContext>): StoredHandler<SdkContext> {
    // Not async: returning the SDK's promise directly saves the extra microtask hops of an async
    // wrapper (both SDKs call handlers inside a promise chain, so a throw here still rejects).
    return function gatedToolCall(request: JsonRpcRequest, sdkContext: SdkContext): Promise<unknown> {
      const name = request.params?.['name'];
      if (typeof name !== 'string') return sdkHandler(request, sdkContext);
      const gated = installation.begin('tools/call', sdkContext);
      const route = routeToolCall(gated, name);
      installation.settings.decisions.route(gated, route);
      if (route.to === 'sdk') return sdkHandler(request, sdkContext);
      if (route.to === 'entry') return callAs(sdkHandler, request, sdkContext, route.entry.key, name);
      return answerHidden(installation, gated, route.entry, name) ?? callAs(sdkHandler, request, sdkContext, unknownNameProbe, name);
    };
  };
}

// A module function rather than a closure inside gatedToolCall: the closure (and the context
// holding request, sdkContext and name) was allocated on every call, routed to the SDK or not.
function callAs<SdkContext>(
  sdkHandler: StoredHandler<SdkContext>,
  request: JsonRpcRequest,
  sdkContext: SdkContext,
  registryKey: string,
  publicName: string,
): Promise<unknown> {
  return answerRenamed(sdkHandler, { ...request, params: { ...request.params, name: registryKey } }, sdkContext, registryKey, publicName);
}

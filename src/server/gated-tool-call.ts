import type { ServerContext } from '@modelcontextprotocol/server';
import type { JsonRpcRequest } from '../adapter/gated-request.js';
import { answerRenamed, unknownNameProbe } from '../adapter/renaming.js';
import { routeToolCall } from '../adapter/routing.js';
import { deniedError, missingCapabilityError } from './denials.js';
import type { Installation } from './installation.js';
import type { StoredHandler } from './server-internals.js';

/**
 * tools/call: resolve the public name to the registration this request may use, then let the
 * SDK do everything else (request validation, argument validation, result validation) once.
 */
export function createGatedToolCall(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedToolCall(request: JsonRpcRequest, ctx: ServerContext) {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, ctx);
    const gated = installation.begin('tools/call', ctx);
    const route = routeToolCall(gated, name);
    installation.settings.decisions.route(gated, route);
    const callAs = (registryKey: string) => answerRenamed(sdkHandler, { ...request, params: { ...request.params, name: registryKey } }, ctx, registryKey, name);
    if (route.to === 'sdk') return sdkHandler(request, ctx);
    if (route.to === 'entry') return callAs(route.entry.key);
    // Hidden. A versioned tool's internal key (no entry) is simply unknown.
    if (route.entry !== undefined) {
      for (const entry of gated.catalog.toolCandidates(name) ?? []) {
        const capabilityError = missingCapabilityError(installation, gated, entry);
        if (capabilityError) throw capabilityError;
      }
      if (installation.settings.denied === 'explain') throw deniedError('Tool', name, gated.view.explain(gated.context, route.entry));
    }
    return callAs(unknownNameProbe);
  };
}

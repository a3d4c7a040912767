import type { ServerContext } from '@modelcontextprotocol/server';
import type { CatalogEntry } from '../adapter/catalog.js';
import { deniedError, missingCapabilityError, renameInError, renameInToolResult, unknownNameProbe } from './denials.js';
import type { Installation } from './installation.js';
import type { JsonRpcRequest, StoredHandler } from './server-internals.js';

/**
 * tools/call: resolve the public name to the registration this request may use, then let the
 * SDK do everything else (request validation, argument validation, result validation) once.
 */
export function createGatedToolCall(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedToolCall(request: JsonRpcRequest, ctx: ServerContext) {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, ctx);
    const gated = installation.begin('tools/call', ctx);
    const { view, catalog, context } = gated;
    const candidates = catalog.toolCandidates(name);
    if (candidates === undefined) {
      // Unknown to the SDK too: its own answer. Known only as a versioned key: internal, so hidden.
      if (catalog.get('tool', name) === undefined) return sdkHandler(request, ctx);
      return callAs(unknownNameProbe, name);
    }
    const chosen = view.resolveTool(catalog, name, context);
    if (chosen === undefined) return answerHidden(candidates);
    if (chosen.key === name) return sdkHandler(request, ctx);
    return callAs(chosen.key, name);

    async function callAs(registryKey: string, shownName: string): Promise<unknown> {
      const routed = { ...request, params: { ...request.params, name: registryKey } };
      try {
        return renameInToolResult(await sdkHandler(routed, ctx), registryKey, shownName);
      } catch (error) {
        throw renameInError(error, registryKey, shownName);
      }
    }

    function answerHidden(denied: readonly CatalogEntry[]): Promise<unknown> {
      for (const entry of denied) {
        const capabilityError = missingCapabilityError(installation, gated, entry);
        if (capabilityError) return Promise.reject(capabilityError);
      }
      if (installation.settings.denied === 'explain') return Promise.reject(deniedError('Tool', name as string, view.explain(context, denied[0]!)));
      return callAs(unknownNameProbe, name as string);
    }
  };
}

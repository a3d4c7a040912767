import type { CatalogEntry } from '../adapter/catalog.js';
import { deniedError, renameInError, renameInToolResult, toolErrorResult } from './denials.js';
import type { Installation } from './installation.js';
import type { JsonRpcRequest, SdkExtra, StoredHandler } from './server-internals.js';

/**
 * A name no registration can have (it starts with NUL). Asking the SDK to call it yields exactly
 * the SDK's "unknown tool" answer on every path (plain, task-augmented, malformed arguments);
 * the probe name is then replaced by the name the client asked for.
 */
const unknownToolProbe = '\u0000mcp-gate:unregistered-tool';

/**
 * tools/call: resolve the public name to the registration this context may use, then let the SDK
 * do everything else (argument validation, task handling, result validation) exactly once.
 */
export function createGatedToolCall(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  // Not async: returning the SDK's promise directly saves the extra microtask hops of an async wrapper.
  return function gatedToolCall(request: JsonRpcRequest, extra: SdkExtra): Promise<unknown> {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, extra);
    const { view, catalog, context } = installation.begin('tools/call', extra);
    const candidates = catalog.toolCandidates(name);
    if (candidates === undefined) {
      // Unknown to the SDK too: its own answer. Known only as a versioned key: internal, so hidden.
      if (catalog.get('tool', name) === undefined) return sdkHandler(request, extra);
      return answerHidden(name, undefined);
    }
    const chosen = view.resolveTool(catalog, name, context);
    if (chosen === undefined) return answerHidden(name, candidates[0]);
    if (chosen.key === name) return sdkHandler(request, extra);
    return callAs(chosen.key, name);

    async function callAs(registryKey: string, shownName: string): Promise<unknown> {
      const routed = { ...request, params: { ...request.params, name: registryKey } };
      try {
        return renameInToolResult(await sdkHandler(routed, extra), registryKey, shownName);
      } catch (error) {
        throw renameInError(error, registryKey, shownName);
      }
    }

    function answerHidden(shownName: string, denied: CatalogEntry | undefined): Promise<unknown> {
      if (installation.settings.denied === 'explain' && denied !== undefined) {
        return Promise.resolve(toolErrorResult(deniedError('Tool', shownName, view.explain(context, denied)).message));
      }
      return callAs(unknownToolProbe, shownName);
    }
  };
}

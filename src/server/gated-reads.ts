import type { ServerContext } from '@modelcontextprotocol/server';
import { dependsOnCaller } from '../adapter/cache-scope.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { deniedError, missingCapabilityError, renameInError, resourceNotFound, unknownNameProbe } from './denials.js';
import { makePrivate } from './gated-lists.js';
import type { GatedRequest, Installation } from './installation.js';
import type { JsonRpcRequest, StoredHandler } from './server-internals.js';

/** Asks the SDK about the probe name instead, so the answer is its own "not found", then renames it. */
async function answerAsUnknown(sdkHandler: StoredHandler, probeRequest: JsonRpcRequest, ctx: ServerContext, shownName: string): Promise<unknown> {
  try {
    return await sdkHandler(probeRequest, ctx);
  } catch (error) {
    throw renameInError(error, unknownNameProbe, shownName);
  }
}

export function createGatedPromptGet(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedPromptGet(request: JsonRpcRequest, ctx: ServerContext) {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, ctx);
    const gated = installation.begin('prompts/get', ctx);
    const entry = gated.catalog.get('prompt', name);
    if (!entry || gated.view.isVisible(gated.context, entry)) return sdkHandler(request, ctx);
    const refusal = missingCapabilityError(installation, gated, entry) ?? explained(installation, gated, entry, 'Prompt', name);
    if (refusal) throw refusal;
    return answerAsUnknown(sdkHandler, { ...request, params: { ...request.params, name: unknownNameProbe } }, ctx, name);
  };
}

/**
 * resources/read: the SDK picks the exact resource, else the first template that matches. When
 * that pick is hidden, the read goes where it would go had the hidden primitives never been
 * registered: the first visible matching template, called as the SDK calls it.
 */
export function createGatedResourceRead(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourceRead(request: JsonRpcRequest, ctx: ServerContext) {
    const rawUri = request.params?.['uri'];
    if (typeof rawUri !== 'string' || !URL.canParse(rawUri)) return sdkHandler(request, ctx);
    const url = new URL(rawUri);
    const uri = url.toString();
    const gated = installation.begin('resources/read', ctx);
    const { view, catalog, context } = gated;
    const resource = catalog.get('resource', uri);
    const templates = installation.internals._registeredResourceTemplates;
    const matching = catalog.entries('resourceTemplate').filter((entry) => templates[entry.key]?.resourceTemplate.uriTemplate.match(uri));
    const sdkPick = resource ?? matching[0];
    if (!sdkPick) return sdkHandler(request, ctx);
    if (view.isVisible(context, sdkPick)) return withReadCacheScope(gated, [resource, ...matching], await sdkHandler(request, ctx));
    const fallback = matching.find((entry) => entry !== sdkPick && view.isVisible(context, entry));
    const template = fallback && templates[fallback.key];
    if (template) {
      const variables = template.resourceTemplate.uriTemplate.match(uri)!;
      return withReadCacheScope(gated, [resource, ...matching], await template.readCallback(url, variables, ctx));
    }
    throw missingCapabilityError(installation, gated, sdkPick) ?? explained(installation, gated, sdkPick, 'Resource', uri) ?? resourceNotFound(rawUri);
  };
}

/** A read answered for some callers and "not found" for others must not sit in a shared cache. */
function withReadCacheScope(gated: GatedRequest, involved: readonly (CatalogEntry | undefined)[], result: unknown): unknown {
  const primitives = involved.flatMap((entry) => (entry ? [entry.metadata] : []));
  if (result === null || typeof result !== 'object' || !dependsOnCaller(gated.view.policy, primitives)) return result;
  const copy = { ...(result as Record<string | symbol, unknown>) };
  makePrivate(copy);
  return copy;
}

/** completion/complete: arguments of hidden prompts and variables of hidden templates complete as unknown ones do. */
export function createGatedCompletion(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedCompletion(request: JsonRpcRequest, ctx: ServerContext) {
    const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const withRef = (changes: Record<string, unknown>): JsonRpcRequest => ({ ...request, params: { ...request.params, ref: { ...ref, ...changes } } });
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const gated = installation.begin('completion/complete', ctx);
      const entry = gated.catalog.get('prompt', ref.name);
      if (!entry || gated.view.isVisible(gated.context, entry)) return sdkHandler(request, ctx);
      const refusal = explained(installation, gated, entry, 'Prompt', ref.name);
      if (refusal) throw refusal;
      return answerAsUnknown(sdkHandler, withRef({ name: unknownNameProbe }), ctx, ref.name);
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const gated = installation.begin('completion/complete', ctx);
      const { view, catalog, context } = gated;
      const templateUri = ref.uri;
      const matching = catalog.entries('resourceTemplate').filter((entry) => entry.metadata.uriTemplate === templateUri);
      const first = matching[0];
      if (first && view.isVisible(context, first)) return sdkHandler(request, ctx);
      const fallback = matching.find((entry) => view.isVisible(context, entry));
      if (fallback) return completeWithTemplate(installation, fallback, request);
      // The SDK answers a fixed resource's URI with an empty completion; a hidden one must not.
      const resource = catalog.get('resource', templateUri);
      if (!first && (!resource || view.isVisible(context, resource))) return sdkHandler(request, ctx);
      const refusal = explained(installation, gated, first ?? resource!, 'Resource template', templateUri);
      if (refusal) throw refusal;
      return answerAsUnknown(sdkHandler, withRef({ uri: unknownNameProbe }), ctx, templateUri);
    }
    return sdkHandler(request, ctx);
  };
}

function explained(installation: Installation, gated: GatedRequest, entry: CatalogEntry, label: Parameters<typeof deniedError>[0], name: string): Error | undefined {
  return installation.settings.denied === 'explain' ? deniedError(label, name, gated.view.explain(gated.context, entry)) : undefined;
}

/** Mirrors the SDK's handleResourceCompletion for a template it would not have picked itself. */
async function completeWithTemplate(installation: Installation, entry: CatalogEntry, request: JsonRpcRequest): Promise<unknown> {
  const params = request.params as { argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } };
  const template = installation.internals._registeredResourceTemplates[entry.key];
  const completer = template?.resourceTemplate.completeCallback(params.argument.name);
  if (!completer) return { completion: { values: [], hasMore: false } };
  const suggestions = await completer(params.argument.value, params.context);
  return { completion: { values: suggestions.map(String).slice(0, 100), total: suggestions.length, hasMore: suggestions.length > 100 } };
}

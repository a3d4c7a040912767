import { CompleteRequestSchema, GetPromptRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { deniedError, promptNotFound, resourceNotFound, resourceTemplateNotFound } from './denials.js';
import type { GatedRequest, Installation } from './installation.js';
import type { JsonRpcRequest, SdkExtra, StoredHandler } from './server-internals.js';

/**
 * Hidden answers are built only after the request parses: the SDK rejects a malformed request
 * before it looks the name up, so doing the same keeps hidden and unknown indistinguishable.
 */
function parses(schema: { safeParse(value: unknown): { success: boolean } }, request: JsonRpcRequest): boolean {
  return schema.safeParse(request).success;
}

export function createGatedPromptGet(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedPromptGet(request: JsonRpcRequest, extra: SdkExtra) {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, extra);
    const { view, catalog, context } = installation.begin('prompts/get', extra);
    const entry = catalog.get('prompt', name);
    if (!entry || view.isVisible(context, entry)) return sdkHandler(request, extra);
    if (!parses(GetPromptRequestSchema, request)) return sdkHandler(request, extra);
    throw installation.settings.denied === 'explain' ? deniedError('Prompt', name, view.explain(context, entry)) : promptNotFound(name);
  };
}

/**
 * resources/read: the SDK picks the exact resource, else the first template that matches. When
 * that pick is hidden, the read goes where it would go had the hidden primitives never been
 * registered: the first visible matching template, called as the SDK calls it.
 */
export function createGatedResourceRead(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourceRead(request: JsonRpcRequest, extra: SdkExtra) {
    const rawUri = request.params?.['uri'];
    if (typeof rawUri !== 'string' || !URL.canParse(rawUri)) return sdkHandler(request, extra);
    const url = new URL(rawUri);
    const uri = url.toString();
    const gated = installation.begin('resources/read', extra);
    const { view, catalog, context } = gated;
    const resource = catalog.get('resource', uri);
    if (resource && view.isVisible(context, resource)) return sdkHandler(request, extra);
    const templates = installation.internals._registeredResourceTemplates;
    const matching = catalog.entries('resourceTemplate').filter((entry) => templates[entry.key]?.resourceTemplate.uriTemplate.match(uri));
    const sdkPick = resource ?? matching[0];
    if (!sdkPick || view.isVisible(context, sdkPick)) return sdkHandler(request, extra);
    const fallback = matching.find((entry) => entry !== sdkPick && view.isVisible(context, entry));
    const template = fallback && templates[fallback.key];
    if (template) return template.readCallback(url, template.resourceTemplate.uriTemplate.match(uri)!, extra);
    if (!parses(ReadResourceRequestSchema, request)) return sdkHandler(request, extra);
    throw deniedOr(installation, gated, sdkPick, 'Resource', uri, resourceNotFound(uri));
  };
}

/** completion/complete: arguments of hidden prompts and variables of hidden templates complete as unknown ones do. */
export function createGatedCompletion(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedCompletion(request: JsonRpcRequest, extra: SdkExtra) {
    const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const gated = installation.begin('completion/complete', extra);
      const entry = gated.catalog.get('prompt', ref.name);
      if (!entry || gated.view.isVisible(gated.context, entry) || !parses(CompleteRequestSchema, request)) return sdkHandler(request, extra);
      throw deniedOr(installation, gated, entry, 'Prompt', ref.name, promptNotFound(ref.name));
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const gated = installation.begin('completion/complete', extra);
      const { view, catalog, context } = gated;
      const templateUri = ref.uri;
      const matching = catalog.entries('resourceTemplate').filter((entry) => entry.metadata.uriTemplate === templateUri);
      const first = matching[0];
      if (first && view.isVisible(context, first)) return sdkHandler(request, extra);
      const fallback = matching.find((entry) => view.isVisible(context, entry));
      if (fallback) return completeWithTemplate(installation, fallback, request);
      // The SDK answers a fixed resource's URI with an empty completion; a hidden one must not.
      const resource = catalog.get('resource', templateUri);
      if (!first && (!resource || view.isVisible(context, resource))) return sdkHandler(request, extra);
      if (!parses(CompleteRequestSchema, request)) return sdkHandler(request, extra);
      throw deniedOr(installation, gated, first ?? resource!, 'Resource template', templateUri, resourceTemplateNotFound(templateUri));
    }
    return sdkHandler(request, extra);
  };
}

function deniedOr(installation: Installation, gated: GatedRequest, entry: CatalogEntry, label: Parameters<typeof deniedError>[0], name: string, notFound: Error): Error {
  return installation.settings.denied === 'explain' ? deniedError(label, name, gated.view.explain(gated.context, entry)) : notFound;
}

/** Mirrors the SDK's handleResourceCompletion for a template it would not have picked itself. */
async function completeWithTemplate(installation: Installation, entry: CatalogEntry, request: JsonRpcRequest): Promise<unknown> {
  const params = request.params as { argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } };
  const template = installation.internals._registeredResourceTemplates[entry.key];
  const completer = template?.resourceTemplate.completeCallback(params.argument.name);
  if (!completer) return { completion: { values: [], hasMore: false } };
  const suggestions = await completer(params.argument.value, params.context);
  return { completion: { values: suggestions.slice(0, 100), total: suggestions.length, hasMore: suggestions.length > 100 } };
}

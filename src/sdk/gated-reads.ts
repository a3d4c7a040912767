import { CompleteRequestSchema, GetPromptRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import type { GatedRequest, JsonRpcRequest } from '../adapter/gated-request.js';
import { completeWithTemplate, requestedUrl, routePrompt, routeResourceRead, routeTemplateCompletion } from '../adapter/routing.js';
import { deniedError, promptNotFound, resourceNotFound, resourceTemplateNotFound } from './denials.js';
import type { Installation } from './installation.js';
import type { SdkExtra, StoredHandler } from './server-internals.js';

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
    const gated = installation.begin('prompts/get', extra);
    const route = routePrompt(gated, name);
    installation.settings.decisions.route(gated, route);
    if (route.to !== 'hidden' || !parses(GetPromptRequestSchema, request)) return sdkHandler(request, extra);
    throw deniedOr(installation, gated, route.entry!, 'Prompt', name, promptNotFound(name));
  };
}

/** resources/read, routed as if hidden primitives had never been registered (see routeResourceRead). */
export function createGatedResourceRead(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourceRead(request: JsonRpcRequest, extra: SdkExtra) {
    const url = requestedUrl(request.params);
    if (url === undefined) return sdkHandler(request, extra);
    const uri = url.toString();
    const gated = installation.begin('resources/read', extra);
    const templates = installation.internals._registeredResourceTemplates;
    const route = routeResourceRead(gated, uri, templates);
    installation.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return sdkHandler(request, extra);
    const template = route.to === 'entry' ? templates[route.entry.key] : undefined;
    if (template) return template.readCallback(url, template.resourceTemplate.uriTemplate.match(uri)!, extra);
    if (!parses(ReadResourceRequestSchema, request)) return sdkHandler(request, extra);
    throw deniedOr(installation, gated, route.entry!, 'Resource', uri, resourceNotFound(uri));
  };
}

/** completion/complete: arguments of hidden prompts and variables of hidden templates complete as unknown ones do. */
export function createGatedCompletion(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedCompletion(request: JsonRpcRequest, extra: SdkExtra) {
    const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const gated = installation.begin('completion/complete', extra);
      const route = routePrompt(gated, ref.name);
      installation.settings.decisions.route(gated, route);
      if (route.to !== 'hidden' || !parses(CompleteRequestSchema, request)) return sdkHandler(request, extra);
      throw deniedOr(installation, gated, route.entry!, 'Prompt', ref.name, promptNotFound(ref.name));
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const gated = installation.begin('completion/complete', extra);
      const route = routeTemplateCompletion(gated, ref.uri);
      installation.settings.decisions.route(gated, route);
      if (route.to === 'sdk') return sdkHandler(request, extra);
      if (route.to === 'entry') return completeWithTemplate(installation.internals._registeredResourceTemplates[route.entry.key], request.params);
      if (!parses(CompleteRequestSchema, request)) return sdkHandler(request, extra);
      throw deniedOr(installation, gated, route.entry!, 'Resource template', ref.uri, resourceTemplateNotFound(ref.uri));
    }
    return sdkHandler(request, extra);
  };
}

function deniedOr(installation: Installation, gated: GatedRequest, entry: CatalogEntry, label: Parameters<typeof deniedError>[0], name: string, notFound: Error): Error {
  return installation.settings.denied === 'explain' ? deniedError(label, name, gated.view.explain(gated.context, entry)) : notFound;
}

/** The gated get, read and completion methods of this binding's handler table. */
export const gatedReads = {
  'prompts/get': createGatedPromptGet,
  'resources/read': createGatedResourceRead,
  'completion/complete': createGatedCompletion,
};

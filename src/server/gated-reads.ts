import type { ServerContext } from '@modelcontextprotocol/server';
import { dependsOnCaller } from '../adapter/cache-scope.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import type { GatedRequest, JsonRpcRequest } from '../adapter/gated-request.js';
import { answerRenamed, unknownNameProbe } from '../adapter/renaming.js';
import { completeWithTemplate, requestedUrl, resourceCandidates, routePrompt, routeResourceRead, routeTemplateCompletion } from '../adapter/routing.js';
import { deniedError, missingCapabilityError, resourceNotFound } from './denials.js';
import { makePrivate } from './gated-lists.js';
import type { Installation } from './installation.js';
import type { StoredHandler } from './server-internals.js';

export function createGatedPromptGet(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedPromptGet(request: JsonRpcRequest, ctx: ServerContext) {
    const name = request.params?.['name'];
    if (typeof name !== 'string') return sdkHandler(request, ctx);
    const gated = installation.begin('prompts/get', ctx);
    const route = routePrompt(gated, name);
    installation.settings.decisions.route(gated, route);
    if (route.to !== 'hidden') return sdkHandler(request, ctx);
    const refusal = missingCapabilityError(installation, gated, route.entry) ?? explained(installation, gated, route.entry!, 'Prompt', name);
    if (refusal) throw refusal;
    // Asks the SDK about the probe name instead, so the answer is its own "not found", then renames it.
    return answerRenamed(sdkHandler, { ...request, params: { ...request.params, name: unknownNameProbe } }, ctx, unknownNameProbe, name);
  };
}

/** resources/read, routed as if hidden primitives had never been registered (see routeResourceRead). */
export function createGatedResourceRead(installation: Installation, sdkHandler: StoredHandler): StoredHandler {
  return async function gatedResourceRead(request: JsonRpcRequest, ctx: ServerContext) {
    const url = requestedUrl(request.params);
    if (url === undefined) return sdkHandler(request, ctx);
    const uri = url.toString();
    const gated = installation.begin('resources/read', ctx);
    const templates = installation.internals._registeredResourceTemplates;
    const candidates = resourceCandidates(gated.catalog, uri, templates);
    const route = routeResourceRead(gated, uri, templates, candidates);
    installation.settings.decisions.route(gated, route);
    const involved = [candidates.resource, ...candidates.matching];
    if (route.to === 'sdk' && route.entry === undefined) return sdkHandler(request, ctx);
    if (route.to === 'sdk') return withReadCacheScope(gated, involved, await sdkHandler(request, ctx));
    const template = route.to === 'entry' ? templates[route.entry.key] : undefined;
    if (template) {
      const variables = template.resourceTemplate.uriTemplate.match(uri)!;
      return withReadCacheScope(gated, involved, await template.readCallback(url, variables, ctx));
    }
    const pick = route.entry!;
    throw missingCapabilityError(installation, gated, pick) ?? explained(installation, gated, pick, 'Resource', uri) ?? resourceNotFound(request.params!['uri'] as string);
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
    const askAsUnknown = (field: 'name' | 'uri', shownName: string) => {
      const probe = { ...request, params: { ...request.params, ref: { ...ref, [field]: unknownNameProbe } } };
      return answerRenamed(sdkHandler, probe, ctx, unknownNameProbe, shownName);
    };
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const gated = installation.begin('completion/complete', ctx);
      const route = routePrompt(gated, ref.name);
      installation.settings.decisions.route(gated, route);
      if (route.to !== 'hidden') return sdkHandler(request, ctx);
      const refusal = explained(installation, gated, route.entry!, 'Prompt', ref.name);
      if (refusal) throw refusal;
      return askAsUnknown('name', ref.name);
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const gated = installation.begin('completion/complete', ctx);
      const route = routeTemplateCompletion(gated, ref.uri);
      installation.settings.decisions.route(gated, route);
      if (route.to === 'sdk') return sdkHandler(request, ctx);
      if (route.to === 'entry') return completeWithTemplate(installation.internals._registeredResourceTemplates[route.entry.key], request.params);
      const refusal = explained(installation, gated, route.entry!, 'Resource template', ref.uri);
      if (refusal) throw refusal;
      return askAsUnknown('uri', ref.uri);
    }
    return sdkHandler(request, ctx);
  };
}

/** The gated get, read and completion methods of this binding's handler table. */
export const gatedReads = {
  'prompts/get': createGatedPromptGet,
  'resources/read': createGatedResourceRead,
  'completion/complete': createGatedCompletion,
};

function explained(installation: Installation, gated: GatedRequest, entry: CatalogEntry, label: Parameters<typeof deniedError>[0], name: string): Error | undefined {
  return installation.settings.denied === 'explain' ? deniedError(label, name, gated.view.explain(gated.context, entry)) : undefined;
}

import type { CatalogEntry } from './catalog.js';
import type { GateSettings } from './gate-options.js';
import type { GatedRequest, JsonRpcRequest, StoredHandler } from './gated-request.js';
import { unknownNameProbe } from './renaming.js';
import { completeWithTemplate, requestedUrl, routePrompt, routeResourceRead, routeTemplateCompletion, type CompletableTemplate, type MatchableTemplate } from './routing.js';

/** A URI template's variables as both SDKs match them. */
type TemplateVariables = Record<string, string | string[]>;

/** A registered resource template as a read or completion uses it (the same in SDK 1.32 and 2.4). */
export interface ReadableTemplate<SdkContext> {
  readonly resourceTemplate: MatchableTemplate['resourceTemplate'] & CompletableTemplate['resourceTemplate'];
  readCallback(url: URL, variables: TemplateVariables, sdkContext: SdkContext): unknown;
}

/** What the get, read and completion gates need of an installation (both SDK bindings' installations are one). */
export interface ReadInstallation<SdkContext> {
  readonly settings: GateSettings;
  readonly internals: { readonly _registeredResourceTemplates: Readonly<Record<string, ReadableTemplate<SdkContext> | undefined>> };
  begin(method: string, sdkContext: SdkContext): GatedRequest;
}

/** A hidden primitive a get, read or completion named, for the binding to answer as its SDK answers an unknown one. */
export interface HiddenRead<SdkContext> {
  readonly method: 'prompts/get' | 'resources/read' | 'completion/complete';
  readonly label: 'Prompt' | 'Resource' | 'Resource template';
  /** The name or URI as the request gave it. */
  readonly name: string;
  /** The registration hidden (the one a denial explains). */
  readonly entry: CatalogEntry;
  readonly gated: GatedRequest;
  readonly request: JsonRpcRequest;
  readonly sdkContext: SdkContext;
  readonly sdkHandler: StoredHandler<SdkContext>;
  /** The request naming `unknownNameProbe` in its place, for a binding that asks its SDK about a name nobody registered. */
  probe(): JsonRpcRequest;
}

/** How one binding answers what its SDK answers differently: hidden names, and (optionally) the results it serves. */
export interface ReadTranslation<Installation, SdkContext> {
  hidden(installation: Installation, hidden: HiddenRead<SdkContext>): Promise<unknown>;
  /** A read's result before it goes out (the SDK's, or a template's the gate chose). Default: as it is. */
  served?(installation: Installation, gated: GatedRequest, uri: string, result: unknown): unknown;
}

type Factory<Installation, SdkContext> = (installation: Installation, sdkHandler: StoredHandler<SdkContext>) => StoredHandler<SdkContext>;

/**
 * prompts/get, resources/read and completion/complete for every SDK binding, routed as if hidden
 * primitives had never been registered (adapter/routing.ts); visible ones are the SDK's to answer.
 */
export function createReadGates<SdkContext, Installation extends ReadInstallation<SdkContext>>(
  translation: ReadTranslation<Installation, SdkContext>,
): Record<'prompts/get' | 'resources/read' | 'completion/complete', Factory<Installation, SdkContext>> {
  const served = translation.served ?? ((_installation: Installation, _gated: GatedRequest, _uri: string, result: unknown) => result);

  function promptGet(installation: Installation, sdkHandler: StoredHandler<SdkContext>): StoredHandler<SdkContext> {
    return async function gatedPromptGet(request, sdkContext) {
      const name = request.params?.['name'];
      if (typeof name !== 'string') return sdkHandler(request, sdkContext);
      const gated = installation.begin('prompts/get', sdkContext);
      const route = routePrompt(gated, name);
      installation.settings.decisions.route(gated, route);
      if (route.to !== 'hidden') return sdkHandler(request, sdkContext);
      const probe = () => ({ ...request, params: { ...request.params, name: unknownNameProbe } });
      return translation.hidden(installation, { method: 'prompts/get', label: 'Prompt', name, entry: route.entry!, gated, request, sdkContext, sdkHandler, probe });
    };
  }

  function resourceRead(installation: Installation, sdkHandler: StoredHandler<SdkContext>): StoredHandler<SdkContext> {
    return async function gatedResourceRead(request, sdkContext) {
      const url = requestedUrl(request.params);
      if (url === undefined) return sdkHandler(request, sdkContext);
      const uri = url.toString();
      const gated = installation.begin('resources/read', sdkContext);
      const templates = installation.internals._registeredResourceTemplates;
      const route = routeResourceRead(gated, uri, templates);
      installation.settings.decisions.route(gated, route);
      // A name nobody registered: the SDK's own answer, as it is.
      if (route.to === 'sdk' && route.entry === undefined) return sdkHandler(request, sdkContext);
      if (route.to === 'sdk') return served(installation, gated, uri, await sdkHandler(request, sdkContext));
      const template = route.to === 'entry' ? templates[route.entry.key] : undefined;
      if (template) {
        const variables = template.resourceTemplate.uriTemplate.match(uri) as TemplateVariables;
        return served(installation, gated, uri, await template.readCallback(url, variables, sdkContext));
      }
      const probe = () => ({ ...request, params: { ...request.params, uri: unknownNameProbe } });
      return translation.hidden(installation, { method: 'resources/read', label: 'Resource', name: uri, entry: route.entry!, gated, request, sdkContext, sdkHandler, probe });
    };
  }

  /** Arguments of hidden prompts and variables of hidden templates complete as unknown ones do. */
  function completion(installation: Installation, sdkHandler: StoredHandler<SdkContext>): StoredHandler<SdkContext> {
    return async function gatedCompletion(request, sdkContext) {
      const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      const hidden = (label: 'Prompt' | 'Resource template', field: 'name' | 'uri', name: string, gated: GatedRequest, entry: CatalogEntry) => {
        const probe = () => ({ ...request, params: { ...request.params, ref: { ...ref, [field]: unknownNameProbe } } });
        return translation.hidden(installation, { method: 'completion/complete', label, name, entry, gated, request, sdkContext, sdkHandler, probe });
      };
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
        const gated = installation.begin('completion/complete', sdkContext);
        const route = routePrompt(gated, ref.name);
        installation.settings.decisions.route(gated, route);
        if (route.to !== 'hidden') return sdkHandler(request, sdkContext);
        return hidden('Prompt', 'name', ref.name, gated, route.entry!);
      }
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
        const gated = installation.begin('completion/complete', sdkContext);
        const route = routeTemplateCompletion(gated, ref.uri);
        installation.settings.decisions.route(gated, route);
        if (route.to === 'sdk') return sdkHandler(request, sdkContext);
        if (route.to === 'entry') return completeWithTemplate(installation.internals._registeredResourceTemplates[route.entry.key], request.params);
        return hidden('Resource template', 'uri', ref.uri, gated, route.entry!);
      }
      return sdkHandler(request, sdkContext);
    };
  }

  return { 'prompts/get': promptGet, 'resources/read': resourceRead, 'completion/complete': completion };
}

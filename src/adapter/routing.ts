import type { Catalog, CatalogEntry } from './catalog.js';
import type { GatedRequest } from './gated-request.js';

/**
 * Where a request naming one primitive goes. Both adapters route the same way and differ only in
 * how they carry a route out with their SDK:
 * - `sdk`: the SDK answers the request as it is; `entry` is the visible registration it will
 *   serve, or undefined when it serves none (a name nobody registered: its own "not found").
 * - `entry`: a visible registration the SDK would not pick itself (a versioned tool's key, a
 *   template standing in for a hidden one); the adapter calls it as the SDK would.
 * - `hidden`: answer as for an unknown name. `entry` is the registration a denial explains;
 *   undefined for a versioned tool's internal key, which is never public.
 */
export type Route =
  | { readonly to: 'sdk'; readonly entry: CatalogEntry | undefined }
  | { readonly to: 'entry'; readonly entry: CatalogEntry }
  | { readonly to: 'hidden'; readonly entry: CatalogEntry | undefined };

/** tools/call: the registration serving a public name for this request, highest visible version first. */
export function routeToolCall(gated: GatedRequest, name: string): Route {
  const { view, catalog, context } = gated;
  // The visible case first: it looks the name up once (resolveTool), the rest only when hidden.
  const chosen = view.resolveTool(catalog, name, context);
  if (chosen !== undefined) return chosen.key === name ? { to: 'sdk', entry: chosen } : { to: 'entry', entry: chosen };
  const candidates = catalog.toolCandidates(name);
  if (candidates !== undefined) return { to: 'hidden', entry: candidates[0] };
  // Unknown to the SDK too: its own answer. Known only as a versioned key: internal, so hidden.
  return catalog.get('tool', name) === undefined ? { to: 'sdk', entry: undefined } : { to: 'hidden', entry: undefined };
}

/** prompts/get, and completion/complete of a prompt's argument. */
export function routePrompt(gated: GatedRequest, name: string): Route {
  const entry = gated.catalog.get('prompt', name);
  if (entry === undefined || gated.view.isVisible(gated.context, entry)) return { to: 'sdk', entry };
  return { to: 'hidden', entry };
}

/** The part of a registered resource template URI matching needs (the same in SDK 1.32 and 2.4). */
export interface MatchableTemplate {
  readonly resourceTemplate: { readonly uriTemplate: { match(uri: string): unknown } };
}

/** Registered templates by registry key, as the SDK keeps them. */
export type MatchableTemplates = Readonly<Record<string, MatchableTemplate | undefined>>;

/** What a resources/read of one URI may touch: the exact resource, then the matching templates in registration order. */
export interface ResourceCandidates {
  readonly resource: CatalogEntry | undefined;
  readonly matching: readonly CatalogEntry[];
}

export function resourceCandidates(catalog: Catalog, uri: string, templates: MatchableTemplates): ResourceCandidates {
  const matching = catalog.entries('resourceTemplate').filter((entry) => templates[entry.key]?.resourceTemplate.uriTemplate.match(uri) != null);
  return { resource: catalog.get('resource', uri), matching };
}

/** The URL a resources/read names, normalized as the SDK normalizes it; undefined when it is none (the SDK answers that). */
export function requestedUrl(params: Readonly<Record<string, unknown>> | undefined): URL | undefined {
  const uri = params?.['uri'];
  return typeof uri === 'string' && URL.canParse(uri) ? new URL(uri) : undefined;
}

/**
 * resources/read: the SDK picks the exact resource, else the first template that matches. When
 * that pick is hidden, the read goes where it would go had the hidden primitives never been
 * registered: the first visible matching template. `candidates` may be passed when the caller
 * computed them already; otherwise templates are matched only if the exact resource is not
 * there to serve the read.
 */
export function routeResourceRead(gated: GatedRequest, uri: string, templates: MatchableTemplates, candidates?: ResourceCandidates): Route {
  const { view, context } = gated;
  const resource = candidates?.resource ?? gated.catalog.get('resource', uri);
  if (resource && view.isVisible(context, resource)) return { to: 'sdk', entry: resource };
  const { matching } = candidates ?? resourceCandidates(gated.catalog, uri, templates);
  const sdkPick = resource ?? matching[0];
  if (sdkPick === undefined) return { to: 'sdk', entry: undefined };
  if (view.isVisible(context, sdkPick)) return { to: 'sdk', entry: sdkPick };
  const fallback = matching.find((entry) => entry !== sdkPick && view.isVisible(context, entry));
  return fallback ? { to: 'entry', entry: fallback } : { to: 'hidden', entry: sdkPick };
}

/**
 * completion/complete of a `ref/resource`: the SDK completes with the first template registered
 * under that URI template; a hidden one gives way to the next visible one. The SDK answers a
 * fixed resource's URI with an empty completion, so a hidden resource must answer as unknown.
 */
export function routeTemplateCompletion(gated: GatedRequest, templateUri: string): Route {
  const { view, catalog, context } = gated;
  const matching = catalog.entries('resourceTemplate').filter((entry) => entry.metadata.uriTemplate === templateUri);
  const first = matching[0];
  if (first && view.isVisible(context, first)) return { to: 'sdk', entry: first };
  const fallback = matching.find((entry) => view.isVisible(context, entry));
  if (fallback) return { to: 'entry', entry: fallback };
  const resource = catalog.get('resource', templateUri);
  if (first === undefined && (resource === undefined || view.isVisible(context, resource))) return { to: 'sdk', entry: resource };
  return { to: 'hidden', entry: first ?? resource };
}

/** The argument a completion request asks about, as both SDKs validate it before a handler runs. */
interface CompletionParams {
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Record<string, string> };
}

/** The part of a registered resource template a completion needs (the same in SDK 1.32 and 2.4). */
export interface CompletableTemplate {
  readonly resourceTemplate: {
    completeCallback(variable: string): ((value: string, context?: { arguments?: Record<string, string> }) => string[] | Promise<string[]>) | undefined;
  };
}

/** Mirrors the SDKs' handleResourceCompletion for a template they would not have picked themselves (at most 100 values). */
export async function completeWithTemplate(template: CompletableTemplate | undefined, params: unknown): Promise<unknown> {
  const { argument, context } = params as CompletionParams;
  const completer = template?.resourceTemplate.completeCallback(argument.name);
  if (!completer) return { completion: { values: [], hasMore: false } };
  const suggestions = await completer(argument.value, context);
  return { completion: { values: suggestions.map(String).slice(0, 100), total: suggestions.length, hasMore: suggestions.length > 100 } };
}

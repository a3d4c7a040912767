import type { AuthInfo, ScopeChallenge, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import type { PrimitiveMetadata } from '../core/context.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { readEnvelope, type RequestEnvelope } from '../adapter/envelope.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { requestedUrl, resourceCandidates, routeResourceRead } from '../adapter/routing.js';
import type { Installation } from './installation.js';
import type { RequestSources } from './request-context.js';
import type { McpServerInternals } from './server-internals.js';

type Challenge = ScopeChallenge | undefined | Promise<ScopeChallenge | undefined>;

/**
 * `createMcpHandler` (and the session transport, for scope challenges) asks the McpServer two
 * questions before any handler runs: a tool's input schema, to check `Mcp-Param-*` headers
 * (400), and a primitive's OAuth scope challenge (403). Answered for a hidden primitive, either
 * reveals it. The gate answers both for the registration this request may use, or as for an
 * unknown name; visible primitives keep the SDK's checks.
 */
export function gatePreDispatchChecks(installation: Installation): void {
  const server = installation.server as unknown as McpServerInternals & Record<string, unknown>;
  const sdkInputSchema = server.toolInputSchemaJson;
  const sdkScopeChallenge = server.resolveScopeChallenge;

  server.toolInputSchemaJson = function gatedToolInputSchemaJson(name: string) {
    const catalog = installation.catalog();
    const candidates = catalog.toolCandidates(name);
    if (candidates === undefined) return catalog.get('tool', name) === undefined ? sdkInputSchema.call(server, name) : undefined;
    // The SDK hands this hook only a name: the envelope is not known yet. When the decision
    // depends on it, skip the header check rather than let its 400 reveal a hidden tool.
    const hasHttp = installation.factoryRequest?.requestInfo !== undefined;
    if (!isDecidable(installation, candidates, { hasHttp, hasEnvelope: false })) return undefined;
    const gated = installation.beginWith(preDispatchSources(installation, 'tools/call', {}, undefined));
    const chosen = gated.view.resolveTool(gated.catalog, name, gated.context);
    return chosen === undefined ? undefined : sdkInputSchema.call(server, chosen.key);
  };

  server.resolveScopeChallenge = function gatedScopeChallenge(challengeContext: Parameters<ScopeChallengeHandler>[0]): Challenge {
    const { request } = challengeContext;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const hasHttp = installation.factoryRequest?.requestInfo !== undefined;
    const sources = preDispatchSources(installation, request.method, readEnvelope(params['_meta']), challengeContext.authInfo);
    const decidable = (entries: readonly CatalogEntry[]) => isDecidable(installation, entries, { hasHttp, hasEnvelope: true });
    const catalog = installation.catalog();
    if (request.method === 'tools/call' && typeof params['name'] === 'string') {
      const candidates = catalog.toolCandidates(params['name']);
      if (candidates === undefined) return catalog.get('tool', params['name']) === undefined ? sdkScopeChallenge(challengeContext) : undefined;
      // Without the request's headers a header-based decision is unknown: keep the challenge (auth first).
      if (!decidable(candidates)) return sdkScopeChallenge(challengeContext);
      const gated = installation.beginWith(sources);
      const chosen = gated.view.resolveTool(gated.catalog, params['name'], gated.context);
      if (chosen === undefined) return undefined;
      return sdkScopeChallenge({ ...challengeContext, request: { ...request, params: { ...params, name: chosen.key } } });
    }
    if (request.method === 'prompts/get' && typeof params['name'] === 'string') {
      const entry = catalog.get('prompt', params['name']);
      if (!entry || !decidable([entry])) return sdkScopeChallenge(challengeContext);
      const gated = installation.beginWith(sources);
      return gated.view.isVisible(gated.context, entry) ? sdkScopeChallenge(challengeContext) : undefined;
    }
    const url = request.method === 'resources/read' ? requestedUrl(params) : undefined;
    if (url !== undefined) {
      return resourceChallenge(installation, url.toString(), {
        decidable,
        begin: () => installation.beginWith(sources),
        sdk: () => sdkScopeChallenge(challengeContext),
        template: (key) => {
          const template = installation.internals._registeredResourceTemplates[key];
          return template?.enabled ? template.scopeChallenge?.(challengeContext) : undefined;
        },
      });
    }
    return sdkScopeChallenge(challengeContext);
  };
}

interface ResourceChallengeSteps {
  decidable(entries: readonly CatalogEntry[]): boolean;
  begin(): GatedRequest;
  sdk(): Challenge;
  template(key: string): Challenge;
}

/** The SDK challenges for the resource it would read; a hidden pick reads (and challenges) as resources/read routes it. */
function resourceChallenge(installation: Installation, uri: string, steps: ResourceChallengeSteps): Challenge {
  const templates = installation.internals._registeredResourceTemplates;
  const candidates = resourceCandidates(installation.catalog(), uri, templates);
  const involved = [...(candidates.resource ? [candidates.resource] : []), ...candidates.matching];
  if (involved.length === 0 || !steps.decidable(involved)) return steps.sdk();
  const route = routeResourceRead(steps.begin(), uri, templates, candidates);
  if (route.to === 'sdk') return steps.sdk();
  return route.to === 'entry' ? steps.template(route.entry.key) : undefined;
}

/** A pre-dispatch hook's request: the envelope it was shown (`{}` when none yet), the factory's HTTP request and auth. */
function preDispatchSources(installation: Installation, method: string, envelope: RequestEnvelope | undefined, authInfo: AuthInfo | undefined): RequestSources {
  const factory = installation.factoryRequest;
  return { method, envelope, httpRequest: factory?.requestInfo, authInfo: authInfo ?? factory?.authInfo, sessionId: undefined };
}

/**
 * Whether the gate can decide these primitives with what a pre-dispatch hook knows. Paths under
 * `client.` come from the envelope; `request.headers`/`request.endpoint` from the HTTP request.
 */
function isDecidable(installation: Installation, entries: readonly CatalogEntry[], known: { hasHttp: boolean; hasEnvelope: boolean }): boolean {
  const metadata: PrimitiveMetadata[] = entries.map((entry) => entry.metadata);
  return installation.currentPolicy().readsFor(metadata).every((path) => {
    if (path === '*') return false;
    if (path === 'client' || path.startsWith('client.')) return known.hasEnvelope;
    if (path === 'request' || path === 'request.sessionId') return false;
    if (path.startsWith('request.headers') || path === 'request.endpoint' || path === 'request.protocolVersion') return known.hasHttp;
    return true;
  });
}

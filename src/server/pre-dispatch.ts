import {
  PerRequestHTTPServerTransport,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type ScopeChallenge,
  type ScopeChallengeHandler,
  type Transport,
} from '@modelcontextprotocol/server';
import type { PrimitiveMetadata } from '../core/primitive-metadata.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { readEnvelope, type RequestEnvelope } from '../adapter/envelope.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { requestedUrl, resourceCandidates, routeResourceRead } from '../adapter/routing.js';
import type { Installation } from './installation.js';
import { checkParamHeaders, type ParamHeaderRejection } from './param-headers.js';
import type { RequestSources } from './request-context.js';
import type { McpServerInternals } from './server-internals.js';

type Challenge = ScopeChallenge | undefined | Promise<ScopeChallenge | undefined>;

/**
 * `createMcpHandler` (and the session transport, for scope challenges) asks the McpServer two
 * questions before any handler runs: a tool's input schema, to check `Mcp-Param-*` headers
 * (400), and a primitive's OAuth scope challenge (403). Answered for a hidden primitive, either
 * reveals it. The gate answers both for the registration this request may use, or as for an
 * unknown name; visible primitives keep the SDK's checks, in the SDK's order (400 before 403).
 */
export function gatePreDispatchChecks(installation: Installation): void {
  const server = installation.server as unknown as McpServerInternals & Record<string, unknown>;
  const sdkInputSchema = server.toolInputSchemaJson;
  const sdkScopeChallenge = server.resolveScopeChallenge;
  /** The tool whose `Mcp-Param-*` check waits for the envelope: the SDK asked before it was known. */
  let deferredHeaderCheck: string | undefined;

  /** The SDK's header check, run once the envelope is known, for the registration this request may use. */
  const deferredHeaderRejection = (request: JSONRPCRequest, httpRequest: Request | undefined, authInfo: AuthInfo | undefined): ParamHeaderRejection | undefined => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    const name = params['name'];
    if (request.method !== 'tools/call' || name !== deferredHeaderCheck || typeof name !== 'string' || httpRequest === undefined) return undefined;
    const sources = { ...preDispatchSources(installation, 'tools/call', readEnvelope(params['_meta']), authInfo), httpRequest };
    const gated = installation.beginWith(sources);
    const chosen = gated.view.resolveTool(gated.catalog, name, gated.context);
    const inputSchema = chosen === undefined ? undefined : sdkInputSchema.call(server, chosen.key);
    return inputSchema === undefined ? undefined : checkParamHeaders(inputSchema, params['arguments'], httpRequest.headers);
  };

  server.toolInputSchemaJson = function gatedToolInputSchemaJson(name: string) {
    deferredHeaderCheck = undefined;
    const catalog = installation.catalog();
    const candidates = catalog.toolCandidates(name);
    if (candidates === undefined) return catalog.get('tool', name) === undefined ? sdkInputSchema.call(server, name) : undefined;
    // The SDK hands this hook only a name: the envelope is not known yet. When the decision
    // depends on it, answer "no header check" now (its 400 would reveal a hidden tool) and run
    // the check when the message arrives with its envelope (gateDeferredHeaderCheck).
    const hasHttp = installation.factoryRequest?.requestInfo !== undefined;
    if (!isDecidable(installation, candidates, { hasHttp, hasEnvelope: false })) {
      deferredHeaderCheck = name;
      return undefined;
    }
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
      // The SDK checks headers before scopes: a deferred header check that fails answers 400, not 403.
      if (deferredHeaderRejection(request, installation.factoryRequest?.requestInfo, challengeContext.authInfo) !== undefined) return undefined;
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

  gateDeferredHeaderCheck(installation, deferredHeaderRejection);
}

type HeaderRejectionOf = (request: JSONRPCRequest, httpRequest: Request | undefined, authInfo: AuthInfo | undefined) => ParamHeaderRejection | undefined;

/**
 * Runs a deferred `Mcp-Param-*` check where the SDK's own check would have answered: inside the
 * per-request transport's dispatch window, before any handler. An error sent there is answered
 * with the ladder's HTTP status (400 for -32020) and the body the SDK's `rejectionResponse`
 * writes, key for key; the message never reaches a handler.
 */
function gateDeferredHeaderCheck(installation: Installation, headerRejectionOf: HeaderRejectionOf): void {
  const server = installation.server;
  const sdkConnect = server.connect;
  server.connect = async function gatedConnect(transport: Transport) {
    await sdkConnect.call(server, transport);
    if (!(transport instanceof PerRequestHTTPServerTransport)) return;
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = function gatedOnMessage(message: JSONRPCMessage, extra?: MessageExtraInfo) {
      const request = isToolCall(message) ? message : undefined;
      const rejection =
        request && headerRejectionOf(request, extra?.request ?? installation.factoryRequest?.requestInfo, extra?.authInfo ?? installation.factoryRequest?.authInfo);
      if (request === undefined || rejection === undefined) return sdkOnMessage?.call(transport, message, extra);
      const { code, message: text, data } = rejection;
      void transport.send({ jsonrpc: '2.0', error: { code, message: text, data }, id: request.id });
    };
  };
}

function isToolCall(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && message.method === 'tools/call' && 'id' in message;
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
  return installation
    .currentPolicy()
    .readsFor(metadata)
    .every((path) => {
      if (path === '*') return false;
      if (path === 'client' || path.startsWith('client.')) return known.hasEnvelope;
      if (path === 'request' || path === 'request.sessionId') return false;
      if (path.startsWith('request.headers') || path === 'request.endpoint' || path === 'request.protocolVersion') return known.hasHttp;
      return true;
    });
}

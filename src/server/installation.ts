import type { McpRequestContext, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { wholeContext, wholeContextOf, type ContextPlan, type RequestContext } from '../core/context.js';
import { withFlagValues } from '../core/flag-values.js';
import type { Policy } from '../core/policy/types.js';
import { readEnvelope } from '../adapter/envelope.js';
import type { GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { GateInstallation, type GatedHandlerTable } from '../adapter/installation.js';
import type { ServerGateSettings } from './gate-settings.js';
import { gatedLists } from './gated-lists.js';
import { gatedReads } from './gated-reads.js';
import { createGatedToolCall } from './gated-tool-call.js';
import { gatePreDispatchChecks } from './pre-dispatch.js';
import { buildRequestContext, type RequestSources } from './request-context.js';
import { readInternals, readSources, type McpServerInternals } from './server-internals.js';

/**
 * The gate on one McpServer 2.4: the shared installation, with this SDK's requests, registries
 * and answers, and its two pre-dispatch hooks wrapped (pre-dispatch.ts).
 */
export class Installation extends GateInstallation<McpServer, ServerContext, RequestSources, ServerGateSettings> {
  readonly internals: McpServerInternals;
  /** The `createMcpHandler` factory's context, when the server was built per request. */
  readonly factoryRequest: McpRequestContext | undefined;
  /**
   * Where this session's latest request came from: a new policy decides what the session sees
   * from the whole of it (wholeContext), while each request copies only what its policy reads.
   */
  #latestSources: RequestSources | undefined;

  constructor(server: McpServer, runtime: GateRuntime<ServerGateSettings>, factoryRequest: McpRequestContext | undefined) {
    const internals = readInternals(server);
    super(server, runtime, () => readSources(internals));
    this.internals = internals;
    this.factoryRequest = factoryRequest;
    this.gateHandlers(gatedHandlers);
    gatePreDispatchChecks(this);
  }

  /** A handler's request: its envelope, its HTTP request and auth from the SDK's per-request context. */
  begin(method: string, ctx: ServerContext): GatedRequest {
    const resolved = this.resolvedWithFlags(ctx);
    if (resolved !== undefined) return resolved;
    const sources: RequestSources = {
      method,
      envelope: readEnvelope(ctx.mcpReq.envelope),
      httpRequest: ctx.http?.req ?? this.factoryRequest?.requestInfo,
      authInfo: ctx.http?.authInfo ?? this.factoryRequest?.authInfo,
      sessionId: ctx.sessionId,
    };
    return this.beginWith(sources, ctx.mcpReq.id);
  }

  /** A request built from given sources; pre-dispatch hooks have no JSON-RPC id at hand. */
  beginWith(sources: RequestSources, requestId?: string | number): GatedRequest {
    // Only 2025-era sessions can be told about a policy change; stateless requests are not tracked.
    const inSession = sources.sessionId !== undefined;
    if (inSession) this.#latestSources = sources;
    return this.startRequest(sources.method, sources, requestId, inSession);
  }

  protected contextOf(_method: string, sources: RequestSources, plan: ContextPlan): RequestContext {
    return buildRequestContext(sources, this.server, plan);
  }

  wholeContext(kept: RequestContext): RequestContext {
    if (this.#latestSources === undefined) return wholeContextOf(kept);
    const whole = buildRequestContext(this.#latestSources, this.server, wholeContext);
    // The flags resolved for that request are not in its sources.
    return kept.flags === undefined ? whole : withFlagValues(whole, kept.flags);
  }

  currentPolicy(): Policy {
    return this.currentView().policy;
  }
}

const gatedHandlers: GatedHandlerTable<Installation, ServerContext> = { ...gatedLists, ...gatedReads, 'tools/call': createGatedToolCall };

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createPlannedRequestContext, wholeContext, type RequestContext, type RequestContextInput } from '../core/context.js';
import { createPrimitiveMetadata, type PrimitiveKind } from '../core/primitive-metadata.js';
import { flagFallbacksOf, withFlagValues } from '../core/flag-values.js';
import type { GateRuntime } from '../adapter/gate-runtime.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { resourceCandidates, routePrompt, routeResourceRead, routeTemplateCompletion, routeToolCall, type Route } from '../adapter/routing.js';
import type { Overlay } from './overlay.js';
import type { UpstreamSnapshot } from './snapshot.js';
import { answerAs, createProbeToken, probeName, probeUri } from './unknown-probe.js';
import { forwardRequest, type ForwardOptions } from './upstream.js';

/** One downstream request, as JSON-RPC carries it. */
export interface WireRequest {
  readonly method: string;
  readonly params?: Record<string, unknown> | undefined;
  readonly id?: string | number | undefined;
}

/** Starts deciding one request: the snapshot in force, the policy view and the request's context (WireConnection's). */
export type BeginRequest = (request: WireRequest, input: RequestContextInput) => Promise<GatedRequest & { snapshot: UpstreamSnapshot }>;

/**
 * The wire binding's calls, gets, reads, subscriptions and completions on one upstream
 * connection: a visible primitive is forwarded (under its versioned key where it has one), a
 * hidden one as a probe name the upstream does not know, answered with the requested name.
 * Nothing naming a hidden primitive is sent upstream.
 */
export class WireRouter {
  readonly #client: Client;
  readonly #runtime: GateRuntime;
  readonly #overlay: Overlay;
  readonly #begin: BeginRequest;
  readonly #probeToken = createProbeToken();

  constructor(client: Client, runtime: GateRuntime, overlay: Overlay, begin: BeginRequest) {
    this.#client = client;
    this.#runtime = runtime;
    this.#overlay = overlay;
    this.#begin = begin;
  }

  async callTool(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const name = request.params?.['name'];
    // Without a name it names no primitive: the upstream rejects it as it would.
    if (typeof name !== 'string') return forwardRequest(this.#client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.#unlisted(gated, routeToolCall(gated, name), 'tool', name, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'entry') return this.#forwardAs(request, options, 'name', route.entry.key, name);
    if (route.to === 'hidden') return this.#forwardAs(request, options, 'name', probeName(this.#probeToken), name);
    return forwardRequest(this.#client, request.method, request.params, options);
  }

  async namedPrompt(request: WireRequest, input: RequestContextInput, options: ForwardOptions, name: unknown): Promise<unknown> {
    if (typeof name !== 'string') return forwardRequest(this.#client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.#unlisted(gated, routePrompt(gated, name), 'prompt', name, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forwardRequest(this.#client, request.method, request.params, options);
    return this.#forwardAs(request, options, 'name', probeName(this.#probeToken), name);
  }

  /**
   * resources/read, subscribe and unsubscribe. The URI is decided as written and as a URL parser
   * normalizes it (an upstream may normalize before looking up). A URI the upstream would serve
   * from a hidden resource or template is hidden, even when another visible template matches
   * too: the upstream, not the gate, picks what serves it.
   */
  async resource(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const uri = request.params?.['uri'];
    if (typeof uri !== 'string') return forwardRequest(this.#client, request.method, request.params, options);
    const gated = await this.#begin(request, input);
    const route = this.routeUri(gated, uri, () => wholeContextFrom(input, gated.context));
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forwardRequest(this.#client, request.method, request.params, options);
    return this.#forwardAs(request, options, 'uri', probeUri(this.#probeToken, uri), uri);
  }

  /**
   * Which of these URIs one request that names them (a 2026-07-28 `subscriptions/listen`'s
   * resource subscriptions) may see: each decided as a resources/read of it is, and recorded as
   * a decision, so the decision log and mcp-gate/otel see the hidden ones as they see hidden reads.
   */
  async visibleUris(request: WireRequest, input: RequestContextInput, uris: readonly string[]): Promise<ReadonlySet<string>> {
    const gated = await this.#begin(request, input);
    const visible = new Set<string>();
    for (const uri of uris) {
      const route = this.routeUri(gated, uri, () => wholeContextFrom(input, gated.context));
      this.#runtime.settings.decisions.route(gated, route);
      if (route.to === 'sdk') visible.add(uri);
    }
    return visible;
  }

  routeUri(gated: GatedRequest & { snapshot: UpstreamSnapshot }, uri: string, decideOn: () => RequestContext): Route {
    const { catalog, templates } = gated.snapshot;
    let route: Route | undefined;
    for (const form of uriForms(uri)) {
      const formRoute = this.#unlisted(gated, routeResourceRead(gated, form, templates), 'resource', form, decideOn);
      if (formRoute.to === 'sdk') {
        route ??= formRoute;
        continue;
      }
      // `entry` names the visible template routing would fall back to; the hidden pick is what the upstream would serve.
      const { resource, matching } = resourceCandidates(catalog, form, templates);
      return { to: 'hidden', entry: formRoute.to === 'hidden' ? formRoute.entry : (resource ?? matching[0]) };
    }
    return route ?? { to: 'sdk', entry: undefined };
  }

  async completion(request: WireRequest, input: RequestContextInput, options: ForwardOptions): Promise<unknown> {
    const ref = request.params?.['ref'] as { type?: unknown; name?: unknown; uri?: unknown } | null | undefined;
    const forward = () => forwardRequest(this.#client, request.method, request.params, options);
    let route: Route;
    let field: 'name' | 'uri';
    let requested: string;
    let gated: GatedRequest;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      gated = await this.#begin(request, input);
      [route, field, requested] = [this.#unlisted(gated, routePrompt(gated, ref.name), 'prompt', ref.name, () => wholeContextFrom(input, gated.context)), 'name', ref.name];
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      gated = await this.#begin(request, input);
      // `entry`: a visible template behind a hidden one with the same URI template; the upstream would complete with the hidden one.
      const templateRoute = routeTemplateCompletion(gated, ref.uri);
      const firstTemplate = gated.catalog.entries('resourceTemplate').find((entry) => entry.metadata.uriTemplate === ref.uri);
      route = templateRoute.to === 'entry' ? { to: 'hidden', entry: firstTemplate } : templateRoute;
      [field, requested] = ['uri', ref.uri];
    } else {
      return forward();
    }
    this.#runtime.settings.decisions.route(gated, route);
    if (route.to === 'sdk') return forward();
    const probe = field === 'name' ? probeName(this.#probeToken) : probeUri(this.#probeToken, requested);
    return answerAs(() => forwardRequest(this.#client, request.method, { ...request.params, ref: { ...ref, [field]: probe } }, options), probe, requested);
  }

  /** The request upstream with one parameter swapped (a versioned tool's key, or a probe), answered with the requested name. */
  #forwardAs(request: WireRequest, options: ForwardOptions, field: string, sent: string, requested: string): Promise<unknown> {
    // A visible primitive under its own name (most calls): nothing to swap, so the answer is not walked.
    if (sent === requested) return forwardRequest(this.#client, request.method, request.params, options);
    return answerAs(() => forwardRequest(this.#client, request.method, { ...request.params, [field]: sent }, options), sent, requested);
  }

  /**
   * A name the upstream did not list is decided as a primitive of that name annotated by the
   * overlay alone: an upstream that adds a tool without announcing it cannot have it called past
   * a policy that would hide it. Decided on the whole context, as the plan covers only the catalog.
   */
  #unlisted(gated: GatedRequest, route: Route, kind: PrimitiveKind, key: string, decideOn: () => RequestContext): Route {
    if (route.to !== 'sdk' || route.entry !== undefined) return route;
    const metadata = createPrimitiveMetadata(kind, key, this.#overlay.annotationFor(kind, key) ?? {}, kind === 'resource' ? { uri: key } : {});
    let allowed: boolean;
    try {
      allowed = gated.view.policy.evaluate(decideOn(), metadata) === true;
    } catch {
      allowed = false;
    }
    return allowed ? route : { to: 'hidden', entry: undefined };
  }
}

/** The whole context of a request, for deciding on a primitive its plan was not made for; with the flags resolved for `planned`. */
function wholeContextFrom(input: RequestContextInput, planned: RequestContext): RequestContext {
  const whole = createPlannedRequestContext(input, wholeContext);
  return planned.flags === undefined ? whole : withFlagValues(whole, planned.flags, flagFallbacksOf(planned));
}

/** The URI as written and as the WHATWG URL parser normalizes it, once each. */
function uriForms(uri: string): string[] {
  const normalized = URL.canParse(uri) ? new URL(uri).href : uri;
  return normalized === uri ? [uri] : [uri, normalized];
}

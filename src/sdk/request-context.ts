import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { createPlannedRequestContext, wholeContext, type ContextPlan, type RequestContext, type RequestContextInput } from '../core/context.js';
import { sessionClientOf } from '../adapter/request-input.js';
import { authOfToken } from '../adapter/token-auth.js';
import type { SdkExtra } from './server-internals.js';

/**
 * Returns a context builder for one server (one session, or every request of a stateless one).
 * A session's requests mostly carry the same values, and building a context costs more than the
 * policy deciding it (about 1 µs of a 15 µs tools/call, most of it Object.freeze on the parts):
 * so a request gets the previous context of its method when every value that context holds is
 * the same, compared one by one (see KeptContext). That is the whole of a context built for a
 * plan that reads named headers and no claims, or of any context of a request with neither
 * request info nor auth (stdio, in-memory).
 */
export function createContextBuilder(server: Server): (method: string, extra: SdkExtra, plan?: ContextPlan) => RequestContext {
  const keptByMethod = new Map<string, KeptContext>();
  return function contextFor(method, extra, plan = wholeContext) {
    const kept = keptByMethod.get(method);
    if (kept !== undefined && kept.answers(extra, server, plan)) return kept.context;
    const built = new KeptContext(method, extra, server, plan);
    if (built.reusable) keptByMethod.set(method, built);
    else keptByMethod.delete(method);
    return built.context;
  };
}

/** Translates one SDK request into the core's frozen RequestContext, holding what `plan` asks for (context-plan.ts). */
export function buildRequestContext(method: string, extra: SdkExtra, server: Server, plan: ContextPlan = wholeContext): RequestContext {
  return createPlannedRequestContext(contextInputOf(method, extra, server), plan);
}

/**
 * What the core builds a context from. Headers and the endpoint come from the transport's request
 * info (absent on stdio and in-memory); client name, version and capabilities from this server's
 * `initialize`, which a stateless HTTP server never sees. Node delivers header names lower-cased
 * (`IncomingMessage.headers`), which a plan naming headers relies on. The core lower-cases names
 * and joins repeated headers, or picks the few a plan names: no copy here.
 */
function contextInputOf(method: string, extra: SdkExtra, server: Server): MutableInput {
  const requestInfo = extra.requestInfo;
  const headers = requestInfo?.headers ?? noHeaders;
  return {
    request: { method, headers, endpoint: endpointOf(extra), sessionId: extra.sessionId, protocolVersion: protocolVersionOf(headers) },
    client: sessionClientOf(server),
    auth: authOfToken(extra.authInfo),
  };
}

type Headers = NonNullable<SdkExtra['requestInfo']>['headers'];
type AuthInfo = SdkExtra['authInfo'];

/** The input as built here: every part present. */
interface MutableInput extends RequestContextInput {
  request: NonNullable<RequestContextInput['request']> & { headers: Headers };
  client: NonNullable<RequestContextInput['client']>;
  auth: NonNullable<RequestContextInput['auth']>;
}

const noHeaders: Headers = Object.freeze({});

function endpointOf(extra: SdkExtra): string {
  return extra.requestInfo?.url?.pathname ?? '';
}

function protocolVersionOf(headers: Headers): string | undefined {
  const value = headers['mcp-protocol-version'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A context with what it was built from, kept for the next request of its method. A request is
 * answered with it when every value the context holds equals what the request would give it,
 * compared with the context itself (so with exactly what the core read and kept): the plan's
 * headers, endpoint, session id, protocol version, the client's name and version, the token's
 * client id, subject, issuer and (when the plan reads them) scopes; capabilities by identity, as
 * the core keys its copy of them. A plan with every header or the claims is not reused while a
 * request has them (comparing them would cost what building does).
 *
 * The context also carries the input it was built from, from which gate-runtime.ts rebuilds a
 * session's whole context when a new policy decides what the session sees (wholeContextOf). A
 * reused context must answer that with the latest request, not the one it was built for: so the
 * input is this object's own and is brought up to date on every reuse. Only its unread parts
 * change (the values the context holds compared equal), so the context stays true to it.
 */
class KeptContext {
  readonly context: RequestContext;
  readonly reusable: boolean;
  readonly #plan: ContextPlan;
  readonly #input: MutableInput;
  readonly #capabilities: unknown;
  /** The URL the context's endpoint was read from. */
  readonly #href: string | undefined;
  #authInfo: AuthInfo;

  constructor(method: string, extra: SdkExtra, server: Server, plan: ContextPlan) {
    const input = contextInputOf(method, extra, server);
    this.context = createPlannedRequestContext(input, plan);
    this.#plan = plan;
    this.#input = input;
    this.#capabilities = input.client.capabilities;
    this.#href = extra.requestInfo?.url?.href;
    this.#authInfo = extra.authInfo;
    this.reusable = (plan.headers !== 'all' || input.request.headers === noHeaders) && (!plan.claims || extra.authInfo === undefined);
  }

  /**
   * Whether this context is the one `extra` would build under `plan`. Reading a hostile input
   * may throw: then the answer is no, and building the context reports what could not be read.
   */
  answers(extra: SdkExtra, server: Server, plan: ContextPlan): boolean {
    if (plan !== this.#plan) return false;
    try {
      if (!this.#holdsRequest(extra) || !this.#holdsClient(server) || !this.#holdsToken(extra.authInfo)) return false;
    } catch {
      return false;
    }
    this.#catchUp(extra);
    return true;
  }

  #holdsRequest(extra: SdkExtra): boolean {
    const held = this.context.request;
    if (extra.sessionId !== held.sessionId) return false;
    const headers = extra.requestInfo?.headers ?? noHeaders;
    const names = this.#plan.headers;
    if (names === 'all') {
      if (headers !== noHeaders) return false;
    } else {
      for (let index = 0; index < names.length; index++) {
        const name = names[index]!;
        // A repeated header (an array) is joined in the context: never equal to it here, so it is
        // rebuilt. No hasOwn check (it cost more than the rest of the comparison): a name that
        // only Object.prototype has (`constructor`) reads the same inherited value on both sides,
        // and both lack the header; an inherited value never equals a header's string.
        if (headers[name] !== held.headers[name]) return false;
      }
    }
    return protocolVersionOf(headers) === held.protocolVersion && this.#holdsEndpoint(extra);
  }

  /** The same URL string is the same endpoint: comparing it saves slicing the path out of each request's URL. */
  #holdsEndpoint(extra: SdkExtra): boolean {
    return extra.requestInfo?.url?.href === this.#href || endpointOf(extra) === this.context.request.endpoint;
  }

  #holdsClient(server: Server): boolean {
    const held = this.context.client;
    const clientVersion = server.getClientVersion();
    return server.getClientCapabilities() === this.#capabilities && clientVersion?.name === held.name && clientVersion?.version === held.version;
  }

  #holdsToken(authInfo: AuthInfo): boolean {
    const held = this.context.auth;
    if (authInfo === undefined) return held.clientId === undefined && held.subject === undefined && held.issuer === undefined && held.scopes.length === 0;
    // Claims are kept only by a context of a request without a token (see `reusable`).
    if (this.#plan.claims) return false;
    const claims = authInfo.extra;
    if (authInfo.clientId !== held.clientId || claims?.['sub'] !== held.subject || claims?.['iss'] !== held.issuer) return false;
    if (!this.#plan.scopes) return true;
    const scopes = authInfo.scopes;
    const heldScopes = held.scopes;
    if (!Array.isArray(scopes) || scopes.length !== heldScopes.length) return false;
    for (let index = 0; index < heldScopes.length; index++) if (scopes[index] !== heldScopes[index]) return false;
    return true;
  }

  /** The input's unread parts as `extra` has them (see the class comment). */
  #catchUp(extra: SdkExtra): void {
    const input = this.#input;
    input.request.headers = extra.requestInfo?.headers ?? noHeaders;
    if (extra.authInfo !== this.#authInfo) {
      this.#authInfo = extra.authInfo;
      input.auth = authOfToken(extra.authInfo);
    }
  }
}

import { createPlannedRequestContext, wholeContext, type RequestContext, type RequestContextInput } from '../core/context.js';
import type { PrimitiveKind, PrimitiveMetadata } from '../core/primitive-metadata.js';
import type { Policy } from '../core/policy/types.js';
import type { ListKind } from '../adapter/list-changes.js';
import type { WireConnection } from '../wire/wire-connection.js';

/**
 * Session state an upstream session holds, replayed on a new one after a restart: subscribed URIs
 * and the log level, each with the request that set it.
 */
export class ReplayedSessionState {
  readonly #subscriptions = new Map<string, RequestContextInput>();
  #logLevel: { readonly params: Record<string, unknown> | undefined; readonly input: RequestContextInput } | undefined;

  holdsState(): boolean {
    return this.#subscriptions.size > 0 || this.#logLevel !== undefined;
  }

  /** Called with each request the upstream answered. */
  remember(method: string, params: Record<string, unknown> | undefined, input: RequestContextInput): void {
    const uri = params?.['uri'];
    if (method === 'resources/subscribe' && typeof uri === 'string') this.#subscriptions.set(uri, input);
    else if (method === 'resources/unsubscribe' && typeof uri === 'string') this.#subscriptions.delete(uri);
    else if (method === 'logging/setLevel') this.#logLevel = { params, input };
  }

  async replay(connection: WireConnection, onError: (error: unknown) => void): Promise<void> {
    // Best effort: a subscription the new upstream refuses is the operator's to hear about, not a reason to fail this request.
    if (this.#logLevel !== undefined) await connection.handle({ method: 'logging/setLevel', params: this.#logLevel.params }, this.#logLevel.input).catch(onError);
    for (const [uri, input] of this.#subscriptions) await connection.handle({ method: 'resources/subscribe', params: { uri } }, input).catch(onError);
  }
}

const listKinds: Readonly<Record<ListKind, readonly PrimitiveKind[]>> = { tools: ['tool'], prompts: ['prompt'], resources: ['resource', 'resourceTemplate'] };

/**
 * After a restart, list_changed for each list whose primitives visible to the latest request's
 * context differ (by name and annotation) between the old upstream session and the new one.
 */
export async function notifyChangedLists(
  policy: Policy,
  before: WireConnection,
  after: WireConnection,
  input: RequestContextInput,
  notify: (list: ListKind) => Promise<void>,
): Promise<void> {
  let context: RequestContext;
  try {
    context = createPlannedRequestContext(input, wholeContext);
  } catch {
    return;
  }
  const visible = (connection: WireConnection, kinds: readonly PrimitiveKind[]) =>
    JSON.stringify(
      kinds.map((kind) =>
        connection
          .catalog()
          .entries(kind)
          .filter((entry) => entry.enabled && entry.metadataError === undefined && isAllowed(policy, context, entry.metadata))
          .map((entry) => [entry.key, entry.metadata]),
      ),
    );
  for (const list of Object.keys(listKinds) as ListKind[]) {
    if (visible(before, listKinds[list]) !== visible(after, listKinds[list])) await notify(list);
  }
}

function isAllowed(policy: Policy, context: RequestContext, metadata: PrimitiveMetadata): boolean {
  try {
    return policy.evaluate(context, metadata) === true;
  } catch {
    return false;
  }
}

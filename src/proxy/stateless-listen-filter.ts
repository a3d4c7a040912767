// The filter of a `subscriptions/listen` request as it goes upstream through `mcp-gate proxy`:
// only the kinds the spec defines, and no URI the listener may not read (a probe stands for it,
// and is named as that URI again in whatever comes back).
import type { ListKind } from '../adapter/list-changes.js';
import { createProbeToken, probeUri, renameDeep } from '../wire/unknown-probe.js';
import type { UpstreamMessage } from './stateless-listen-upstream.js';
import type { EnvelopeMeta } from './stateless-upstream.js';

/** The list_changed kinds of a listen filter, by the list they are about. */
export const listChangedKeys: Readonly<Record<ListKind, string>> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };

export interface GatedListenRequest {
  readonly id: string | number;
  readonly params: Record<string, unknown> & { readonly _meta: EnvelopeMeta };
  /** The URIs sent upstream as they are (the listener may read them): the only ones resources/updated is relayed for. */
  readonly relayedUris: ReadonlySet<string>;
  /** An upstream message with each probe named as the URI it stands for. */
  named(message: UpstreamMessage): UpstreamMessage;
}

/**
 * The listen request as it goes upstream: its envelope, and its filter with only the kinds the
 * proxy knows how to filter; every string in the filter that the listener may not read as a
 * resource becomes a probe URI of its own (an invalid filter is refused by the upstream as it
 * would refuse it, without the hidden URI). Other parameters are not sent.
 */
export function gatedRequest(
  request: { readonly id: string | number; readonly params: Record<string, unknown> | undefined },
  envelope: EnvelopeMeta,
  shows: (uri: string) => boolean,
): GatedListenRequest {
  const probes = new Map<string, string>();
  const relayedUris = new Set<string>();
  const gate = (value: string): string => {
    if (shows(value)) {
      relayedUris.add(value);
      return value;
    }
    const probe = probeUri(createProbeToken(), value);
    probes.set(probe, value);
    return probe;
  };
  const filter = request.params?.['notifications'];
  // The filter's own keys are field names, never URIs: only the strings in their values are gated
  // (an invalid filter, a string where a list belongs, keeps no hidden URI either).
  let sent = filter === undefined ? undefined : mapStrings(filter, gate);
  if (isRecord(filter)) {
    const known: Record<string, unknown> = {};
    for (const key of [...Object.values(listChangedKeys), 'resourceSubscriptions']) if (key in filter) known[key] = mapStrings(filter[key], gate);
    sent = known;
  }
  return {
    id: request.id,
    params: { ...(sent === undefined ? {} : { notifications: sent }), _meta: envelope },
    relayedUris,
    named(message) {
      let named: unknown = message;
      for (const [probe, uri] of probes) named = renameDeep(named, probe, uri);
      return named as UpstreamMessage;
    },
  };
}

/** Every string in a JSON value (object keys included) passed through `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

import type { ServerContext } from '@modelcontextprotocol/server';
import { dependsOnCaller } from '../adapter/cache-scope.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import { createReadGates } from '../adapter/gated-reads.js';
import { answerRenamed, unknownNameProbe } from '../adapter/renaming.js';
import { resourceCandidates } from '../adapter/routing.js';
import { deniedError, missingCapabilityError, resourceNotFound } from './denials.js';
import { makePrivate } from './gated-lists.js';
import type { Installation } from './installation.js';

/**
 * The gated get, read and completion methods of this binding's handler table (adapter/gated-reads.ts).
 * A hidden name is asked of the SDK as the probe name, so the answer is its own "not found", then
 * renamed; a hidden resource answers the SDK's ResourceNotFoundError. A primitive hidden only by a
 * capability its client did not declare answers -32021 under `missingCapability: 'error'`.
 */
export const gatedReads = createReadGates<ServerContext, Installation>({
  async hidden(installation, hidden) {
    const { method, label, name, gated, entry, request } = hidden;
    const refusal = (method === 'completion/complete' ? undefined : missingCapabilityError(installation, gated, entry)) ?? explained(installation, gated, entry, label, name);
    if (refusal) throw refusal;
    if (method === 'resources/read') throw resourceNotFound(request.params!['uri'] as string);
    return answerRenamed(hidden.sdkHandler, hidden.probe(), hidden.sdkContext, unknownNameProbe, name);
  },
  served: withReadCacheScope,
});

/** A read answered for some callers and "not found" for others must not sit in a shared cache. */
function withReadCacheScope(installation: Installation, gated: GatedRequest, uri: string, result: unknown): unknown {
  if (result === null || typeof result !== 'object') return result;
  const candidates = resourceCandidates(gated.catalog, uri, installation.internals._registeredResourceTemplates);
  const involved = [candidates.resource, ...candidates.matching];
  const primitives = involved.flatMap((entry) => (entry ? [entry.metadata] : []));
  if (!dependsOnCaller(gated.view.policy, primitives)) return result;
  const copy = { ...(result as Record<string | symbol, unknown>) };
  makePrivate(copy);
  return copy;
}

function explained(installation: Installation, gated: GatedRequest, entry: CatalogEntry, label: Parameters<typeof deniedError>[0], name: string): Error | undefined {
  return installation.settings.denied === 'explain' ? deniedError(label, name, gated.view.explain(gated.context, entry)) : undefined;
}

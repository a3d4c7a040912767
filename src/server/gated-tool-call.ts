import type { ServerContext } from '@modelcontextprotocol/server';
import { createToolCallGate } from '../adapter/gated-tool-call.js';
import { deniedError, missingCapabilityError } from './denials.js';
import type { Installation } from './installation.js';

/**
 * tools/call (adapter/gated-tool-call.ts). A tool hidden only by a capability its client did not
 * declare answers -32021 under `missingCapability: 'error'`; `denied: 'explain'` throws the
 * decision's sentence.
 */
export const createGatedToolCall = createToolCallGate<ServerContext, Installation>((installation, gated, entry, name) => {
  if (entry === undefined) return undefined;
  for (const candidate of gated.catalog.toolCandidates(name) ?? []) {
    const capabilityError = missingCapabilityError(installation, gated, candidate);
    if (capabilityError) return Promise.reject(capabilityError);
  }
  if (installation.settings.denied === 'explain') return Promise.reject(deniedError('Tool', name, gated.view.explain(gated.context, entry)));
  return undefined;
});

import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from '@modelcontextprotocol/server';
import type { Decision } from '../core/policy/types.js';
import type { CatalogEntry } from '../adapter/catalog.js';
import { missingCapabilities, toCapabilitiesObject } from '../adapter/capability-requirements.js';
import type { GatedRequest } from '../adapter/gated-request.js';
import type { Installation } from './installation.js';

/** The SDK 2.4 answer for a resource URI nothing serves (mcp.js `ResourceNotFoundError`, -32602). */
export function resourceNotFound(uri: string): Error {
  return new ResourceNotFoundError(uri);
}

/** `denied: 'explain'`: the decision's sentence instead of "not found", for trusted deployments. */
export function deniedError(label: 'Tool' | 'Prompt' | 'Resource' | 'Resource template', name: string, decision: Decision): Error {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `${label} ${name} denied: ${decision.message}`);
}

/**
 * `missingCapability: 'error'`: -32021 when the entry would be visible had the client declared
 * the capabilities it requires and did not. Rule-based denials stay hidden: this only tells a
 * client what to declare, never that a rule excluded it.
 */
export function missingCapabilityError(installation: Installation, gated: GatedRequest, entry: CatalogEntry | undefined): Error | undefined {
  if (entry === undefined || installation.settings.missingCapability !== 'error' || entry.metadataError) return undefined;
  const missing = missingCapabilities(entry.metadata.requires.capabilities, gated.context.client.capabilities);
  if (missing.length === 0) return undefined;
  let allowedOtherwise: boolean;
  try {
    allowedOtherwise = gated.view.policy.evaluate(gated.context, entry.metadataIgnoringCapabilities);
  } catch {
    allowedOtherwise = false;
  }
  return allowedOtherwise ? new MissingRequiredClientCapabilityError({ requiredCapabilities: toCapabilitiesObject(missing) }) : undefined;
}

/** A cursor this gate did not issue for this list, policy revision and context. */
export function invalidCursor(): Error {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
}

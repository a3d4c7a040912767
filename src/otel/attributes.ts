import type { Attributes } from '@opentelemetry/api';
import type { PrimitiveKind } from '../core/primitive-metadata.js';
import type { DecisionEvent } from '../adapter/decision-events.js';
import type { DecisionFlags } from '../adapter/decision-flags.js';
import { metadataKey } from '../adapter/metadata.js';

// Names from the OpenTelemetry semantic conventions: feature flags (feature_flag.*, the
// `feature_flag.evaluation` event) and MCP (mcp.*, gen_ai.*, jsonrpc.*, rpc.response.status_code).
// Both are "Development"/"Release Candidate" there; docs/otel.md lists every name we emit.

/** The name of the span event recorded for each decision (OTel feature-flag semantic conventions). */
export const evaluationEventName = 'feature_flag.evaluation';

/** `feature_flag.provider.name` of every decision the gate records. */
export const providerName = 'mcp-gate';

/** What a decision gave the request: `feature_flag.result.variant`. */
export type DecisionVariant = 'visible' | 'hidden';

/** `feature_flag.result.reason` values the gate uses (a subset of the conventions' list). */
export type FlagResultReason = 'targeting_match' | 'default' | 'error';

// SDK 1.32 wraps it for tools/call in an `isError` result whose text names the code; 2.4 answers
// with the JSON-RPC error itself; both answer prompts/get and resources/read with the error.
/** `rpc.response.status_code` of a hidden call, get or read: the SDKs' answer to an unknown name (InvalidParams). */
export const hiddenStatusCode = '-32602';

/** Methods whose hidden answer is the SDK's -32602 (checked for both SDKs in test/otel). */
const notFoundMethods: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A rule or a capability/header requirement chose the answer; `default` the policy's default; an error hid it. */
export function flagReason(reason: DecisionEvent['reason']): FlagResultReason {
  if (reason === 'default') return 'default';
  if (reason === 'error') return 'error';
  return 'targeting_match';
}

/** `tool:deploy`, `prompt:greeting`, `resource:file:///readme.md`, `template:user-profile`: the gate's own metadata keys. */
export function flagKey(kind: PrimitiveKind, name: string, uri: string | undefined): string {
  return metadataKey(kind, kind === 'resource' && uri !== undefined ? uri : name);
}

/** The MCP attributes of the request a decision belongs to (not the flag evaluation itself). */
export function requestAttributes(event: DecisionEvent): Attributes {
  const method = event.method;
  const attributes: Attributes = { 'mcp.method.name': method };
  const primitive = event.primitive;
  if (event.requestId !== undefined) attributes['jsonrpc.request.id'] = String(event.requestId);
  if (primitive !== undefined) {
    if (method === 'tools/call') {
      attributes['gen_ai.tool.name'] = primitive.name;
      attributes['gen_ai.operation.name'] = 'execute_tool';
    } else if (primitive.kind === 'prompt') {
      attributes['gen_ai.prompt.name'] = primitive.name;
    }
    if (event.uri !== undefined && method === 'resources/read') attributes['mcp.resource.uri'] = event.uri;
    if (!event.allowed && notFoundMethods.has(method)) {
      attributes['rpc.response.status_code'] = hiddenStatusCode;
      attributes['error.type'] = hiddenStatusCode;
    }
  }
  return attributes;
}

/**
 * The span name the MCP conventions give a request: `{mcp.method.name} {target}`, the target
 * being the tool or prompt name; a resource's URI is left out (high cardinality).
 */
export function spanNameOf(event: DecisionEvent): string {
  const primitive = event.primitive;
  if (primitive !== undefined && (event.method === 'tools/call' || event.method === 'prompts/get')) return `${event.method} ${primitive.name}`;
  return event.method;
}

/** The attributes of one `feature_flag.evaluation` event. Reading `reason` runs the policy's explain. */
export function evaluationAttributes(event: DecisionEvent, primitive: NonNullable<DecisionEvent['primitive']>): Attributes {
  const reason = event.reason;
  const attributes: Attributes = {
    'feature_flag.key': flagKey(primitive.kind, primitive.name, event.uri),
    'feature_flag.provider.name': providerName,
    'feature_flag.version': event.policyRevision,
    'feature_flag.result.variant': variantOf(event),
    'feature_flag.result.reason': flagReason(reason),
    'mcp_gate.reason': reason,
  };
  const ruleId = event.ruleId;
  if (ruleId !== undefined) attributes['mcp_gate.rule.id'] = ruleId;
  const flags = event.flags;
  if (flags !== undefined) addFlagAttributes(attributes, flags);
  // The conventions require error.type when the reason is error; OpenFeature's code for "other".
  if (reason === 'error') attributes['error.type'] = 'general';
  return attributes;
}

/** `visible` when the request got the primitive, else `hidden`. */
export function variantOf(event: DecisionEvent): DecisionVariant {
  return event.allowed ? 'visible' : 'hidden';
}

/**
 * The feature flags the decision read (a policy's `"flags"`): `mcp_gate.flag.<key>` for each value
 * it decided on — a list or an object as JSON, which attributes cannot hold — and
 * `mcp_gate.flag.fallbacks` naming those that held their declared default because resolving
 * them failed. A rule that hid a tool because a flag was off says which flag, and whether the
 * provider said so or was not reached.
 */
function addFlagAttributes(attributes: Attributes, flags: DecisionFlags): void {
  for (const [key, value] of Object.entries(flags.values)) {
    attributes[`mcp_gate.flag.${key}`] = typeof value === 'object' ? JSON.stringify(value) : value;
  }
  if (flags.fallbacks.length > 0) attributes['mcp_gate.flag.fallbacks'] = flags.fallbacks.map((fallback) => fallback.key);
}

import { compareVersionsDescending } from '../adapter/versioning.js';
import { createRequestContext, type RequestContextInput } from '../core/context.js';
import { listMethodOf, type PrimitiveKind, type PrimitiveMetadata } from '../core/primitive-metadata.js';
import type { Decision, Policy } from '../core/policy/types.js';
import { withRequest } from './context-options.js';

/** One primitive's decision for one request, and whether a client would actually get it. */
export interface PrimitiveDecision {
  readonly metadata: PrimitiveMetadata;
  readonly decision: Decision;
  /**
   * Allowed and served. A versioned tool is served once per name, at its highest allowed
   * version (as the gate does), so an allowed lower version is `served: false`.
   */
  readonly served: boolean;
  /** For an allowed but unserved version: the version served instead. */
  readonly shadowedBy?: string | undefined;
}

/** The request a client makes: everything but the method, which follows each primitive's kind. */
export interface RequestShape {
  readonly client: RequestContextInput;
  readonly headers: Record<string, string>;
  readonly endpoint: string;
}

export function decideAll(policy: Policy, primitives: readonly PrimitiveMetadata[], request: RequestShape): PrimitiveDecision[] {
  const contexts = new Map<PrimitiveKind, ReturnType<typeof createRequestContext>>();
  const contextFor = (kind: PrimitiveKind) => {
    let context = contexts.get(kind);
    if (!context) contexts.set(kind, (context = createRequestContext(withRequest(request.client, request.headers, request.endpoint, listMethodOf(kind)))));
    return context;
  };
  const decisions = primitives.map((metadata) => ({ metadata, decision: policy.explain(contextFor(metadata.kind), metadata) }));
  const servedVersion = new Map<string, string | undefined>();
  for (const { metadata, decision } of decisions) {
    if (metadata.kind !== 'tool' || !decision.allowed) continue;
    const current = servedVersion.get(metadata.name);
    if (!servedVersion.has(metadata.name) || compareVersionsDescending(metadata.version, current) < 0) {
      servedVersion.set(metadata.name, metadata.version);
    }
  }
  return decisions.map(({ metadata, decision }) => {
    if (!decision.allowed || metadata.kind !== 'tool') return { metadata, decision, served: decision.allowed };
    const served = servedVersion.get(metadata.name);
    return served === metadata.version ? { metadata, decision, served: true } : { metadata, decision, served: false, shadowedBy: served };
  });
}

/** Stable identity of a served primitive, for comparing two policies' views. */
export function servedKey(metadata: PrimitiveMetadata): string {
  return [metadata.kind, metadata.name, metadata.version ?? '', metadata.uri ?? ''].join('\u0000');
}

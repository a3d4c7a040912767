import { expect } from 'vitest';
import { compilePolicy, type Policy, type PolicyDocument } from '../../src/index.js';
import type { DecisionEvent } from '../../src/adapter/decision-events.js';

/**
 * A compiled policy that counts its `explain` calls, and whose `contextKey` throws: adapters key
 * their caches with `contextKeyFor` (narrowed to a registry), never with `contextKey`.
 */
export function instrumentedPolicy(document: PolicyDocument): { policy: Policy; explains: () => number } {
  const compiled = compilePolicy(document);
  let explains = 0;
  // `contextKey` is no longer part of Policy; the trap stays for code that reaches for it untyped.
  const policy: Policy & { contextKey(): never } = {
    revision: compiled.revision,
    default: compiled.default,
    rules: compiled.rules,
    reads: compiled.reads,
    callerSpecific: compiled.callerSpecific,
    cacheable: compiled.cacheable,
    readsFor: (primitives) => compiled.readsFor(primitives),
    contextKeyFor: (primitives) => compiled.contextKeyFor(primitives),
    evaluate: (context, primitive) => compiled.evaluate(context, primitive),
    forContext: (context) => compiled.forContext(context),
    explain(context, primitive) {
      explains++;
      return compiled.explain(context, primitive);
    },
    contextKey() {
      throw new Error('an adapter called policy.contextKey');
    },
  };
  return { policy, explains: () => explains };
}

/** An event without what differs from run to run (clock, request id, revision, context), which tests check apart. */
export function stableFields({ time: _time, requestId: _requestId, policyRevision: _revision, context: _context, ...rest }: DecisionEvent) {
  return rest;
}

/** The event of one list request. */
export function listEvent(method: string, visible: number, hidden: number) {
  return { sessionId: undefined, method, counts: { visible, hidden }, allowed: true, reason: 'list', message: `${visible} visible, ${hidden} hidden` };
}

/** What every event carries however it was decided: an ISO time, the deciding revision, the request's own context. */
export function expectRequestFields(events: readonly DecisionEvent[], policyRevision: string, clientName: string): void {
  for (const event of events) {
    expect(new Date(event.time).toISOString()).toBe(event.time);
    expect(event.policyRevision).toBe(policyRevision);
    expect(event.context.request.method).toBe(event.method);
    expect(event.context.client.name).toBe(clientName);
  }
}

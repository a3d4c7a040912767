import { memoSlot, type MemoSlot, type RequestContext } from '../context.js';

// What one request has already decided that does not depend on the primitive: the values of
// rule conditions that read only the request, and whether the client declared each distinct set
// of required capabilities. A list asks these questions once per primitive, and a call or read
// may ask them for several primitives (versions, templates); the answers cannot change within a
// request, so each is computed once.

const bitSlots = 31;

export class RequestMemo {
  private ruleKnown = 0;
  private ruleTrue = 0;
  private capabilityKnown = 0;
  private capabilityTrue = 0;
  /** Rule slots past the bit fields: 0 unknown, 1 false, 2 true. */
  private wideRules: Uint8Array | undefined = undefined;

  /** A rule condition's value: true, false, or undefined when not yet known. */
  rule(slot: number): boolean | undefined {
    if (slot < bitSlots) {
      const bit = 1 << slot;
      return (this.ruleKnown & bit) === 0 ? undefined : (this.ruleTrue & bit) !== 0;
    }
    const value = this.wideRules?.[slot - bitSlots] ?? 0;
    return value === 0 ? undefined : value === 2;
  }

  setRule(slot: number, value: boolean): void {
    if (slot < bitSlots) {
      const bit = 1 << slot;
      this.ruleKnown |= bit;
      if (value) this.ruleTrue |= bit;
      return;
    }
    const index = slot - bitSlots;
    if (this.wideRules === undefined || this.wideRules.length <= index) {
      const grown = new Uint8Array(Math.max(index + 1, bitSlots));
      if (this.wideRules !== undefined) grown.set(this.wideRules);
      this.wideRules = grown;
    }
    this.wideRules[index] = value ? 2 : 1;
  }

  /** Whether the client declared capability set `index`; undefined when not yet known or not memoized (past the bit field). */
  capabilities(index: number): boolean | undefined {
    if (index >= bitSlots) return undefined;
    const bit = 1 << index;
    return (this.capabilityKnown & bit) === 0 ? undefined : (this.capabilityTrue & bit) !== 0;
  }

  setCapabilities(index: number, value: boolean): void {
    if (index >= bitSlots) return;
    const bit = 1 << index;
    this.capabilityKnown |= bit;
    if (value) this.capabilityTrue |= bit;
  }
}

/**
 * The memo `owner` (one compiled policy) keeps for this context, or undefined for a context not
 * built by createRequestContext: a hand-made object may be mutated between calls, so nothing
 * about it is remembered. Another policy's memo is replaced, never read.
 */
export function memoFor(context: RequestContext, owner: object): RequestMemo | undefined {
  const slot = (context as { [memoSlot]?: MemoSlot })[memoSlot];
  if (slot === undefined) return undefined;
  if (slot.owner !== owner) {
    slot.owner = owner;
    slot.memo = new RequestMemo();
  }
  return slot.memo as RequestMemo;
}

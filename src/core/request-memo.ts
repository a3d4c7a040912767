// What one request has already decided that does not depend on the primitive: the values of
// rule conditions that read only the request, and whether the client declared each distinct set
// of required capabilities. A list asks these questions once per primitive, and a call or read
// may ask them for several primitives (versions, templates); the answers cannot change within a
// request, so each is computed once.
//
// A context createRequestContext built has a private memo, made when a policy first asks for it
// (everything in such a context is frozen all the way down, so its answers cannot change);
// memoFor below makes and reads it. It belongs to one policy at a time: another policy takes it
// over by resetting it, which stores only small integers, so a request pays for one memo however
// many policies decide it, and a request no policy decides (a list served from a cache) pays for
// none. Answers about declared
// capabilities live in a CapabilityMemo shared by every request that declares the same (frozen,
// copied-once) capabilities object: a session's requests share it, so a new request of a known
// session does not test its capabilities again.

const bitSlots = 31;

// Owners are numbers, not objects: a memo changes hands on every request, and storing a small
// integer needs no GC write barrier (a pointer store does, and costs far more while the
// collector is marking, which a busy server's allocation keeps it doing).
let lastOwner = 0;

/** A new owner identity (one per compiled policy); 0 means none. */
export function newMemoOwner(): number {
  return ++lastOwner;
}

/** Which capability sets one frozen capabilities object has, for one policy at a time. */
export class CapabilityMemo {
  owner = 0;
  known = 0;
  present = 0;
}

export class RequestMemo {
  /** The policy whose answers these are (from newMemoOwner); 0 before first use. */
  private owner = 0;
  private ruleKnown = 0;
  private ruleTrue = 0;
  /** Rule slots past the bit fields: 0 unknown, 1 false, 2 true. */
  private wideRules: Uint8Array | undefined = undefined;
  /** Whether the owner has made a single decision (not a list) with this memo yet. */
  private decidedOnce = false;

  /** `declared`: the shared memo of the context's capabilities object; undefined when it declared none. */
  constructor(private readonly declared: CapabilityMemo | undefined = undefined) {}

  /** This memo for `owner`, emptied first when it held another policy's answers. */
  for(owner: number): this {
    if (this.owner !== owner) {
      this.owner = owner;
      this.ruleKnown = 0;
      this.ruleTrue = 0;
      this.wideRules?.fill(0);
      this.decidedOnce = false;
    }
    return this;
  }

  /**
   * Where a single decision keeps rule answers: nowhere for the owner's first one, this memo
   * from the second on. Most requests (a call, a read) decide once, and storing answers nobody
   * reads again cost that decision about 5 %; a request that decides again (a read trying
   * templates, a list) remembers from then on. Capability answers are kept from the first.
   */
  rulesForDecision(): this | undefined {
    if (this.decidedOnce) return this;
    this.decidedOnce = true;
    return undefined;
  }

  /** Forgets every answer (a benchmark uses it to time a request's first decision). */
  forget(): void {
    this.owner = 0;
  }

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

  /**
   * Whether the client's capabilities include capability set `index`; undefined when not yet
   * known, or not remembered (no capabilities declared, or an index past the bit field).
   */
  capabilities(index: number): boolean | undefined {
    const declared = this.declared;
    if (declared === undefined || index >= bitSlots || declared.owner !== this.owner) return undefined;
    const bit = 1 << index;
    return (declared.known & bit) === 0 ? undefined : (declared.present & bit) !== 0;
  }

  setCapabilities(index: number, value: boolean): void {
    const declared = this.declared;
    if (declared === undefined || index >= bitSlots || this.owner === 0) return;
    if (declared.owner !== this.owner) {
      declared.owner = this.owner;
      declared.known = 0;
      declared.present = 0;
    }
    const bit = 1 << index;
    declared.known |= bit;
    if (value) declared.present |= bit;
  }
}

/**
 * A context built by createRequestContext: plain frozen data, plus a private memo where a policy
 * remembers what it has decided about this request that does not depend on the primitive (sound
 * because everything here is frozen all the way down). A class only for that private field: it
 * is invisible to `Object.keys`, JSON, spreads and equality, so a copy made with `{...context}`
 * never carries this request's answers; a non-enumerable property did the same through
 * `Object.defineProperty`, which cost 210 ns per request.
 *
 * The memo is made by the first policy that asks for it (memoFor), not with the context: a
 * request whose list comes from a cache, or that no policy decides, never needs one. (Private
 * fields stay writable in a frozen object.)
 *
 * Generic over its three parts so that this module need not import context.ts, which builds it
 * (context.ts's RequestContext is what it is there); the functions below take any value.
 */
export class FrozenRequestContext<Request = unknown, Client = unknown, Auth = unknown, Flags = unknown> {
  readonly request: Request;
  readonly client: Client;
  readonly auth: Auth;
  /**
   * Flag values resolved for this request (policy/flag-reads.ts reads them). Declared, not a
   * field: only a context with flags has the property, so every other context keeps the shape
   * (and the keys, for schemas and equality) it had before flags existed.
   */
  declare readonly flags?: Flags;
  #memo: RequestMemo | undefined = undefined;
  /** The shared memo of the context's capabilities object; undefined when it declared none. */
  readonly #declared: CapabilityMemo | undefined;
  /** What a context built for one plan was built from, so the whole context can be built later; undefined when whole. */
  readonly #source: unknown;

  constructor(request: Request, client: Client, auth: Auth, declared: CapabilityMemo | undefined, source?: unknown, flags?: Flags) {
    this.request = request;
    this.client = client;
    this.auth = auth;
    if (flags !== undefined) (this as { flags?: Flags }).flags = flags;
    this.#declared = declared;
    this.#source = source;
    Object.freeze(this);
  }

  /**
   * The same request with flag values: a new context (with a memo of its own, as its rules may
   * answer differently), sharing the frozen parts. Undefined for a context not built here.
   */
  static withFlags<Flags>(context: unknown, flags: Flags): FrozenRequestContext<unknown, unknown, unknown, Flags> | undefined {
    if (typeof context !== 'object' || context === null || !(#source in context)) return undefined;
    const built = context as FrozenRequestContext;
    return new FrozenRequestContext(built.request, built.client, built.auth, built.#declared, built.#source, flags);
  }

  /** The input of a context built for a plan (not whole); undefined for any other context. */
  static partialSourceOf(context: unknown): unknown {
    if (typeof context !== 'object' || context === null) return undefined;
    return #source in context ? (context as FrozenRequestContext).#source : undefined;
  }

  static memoOf(context: unknown): RequestMemo | undefined {
    // Policies never throw, whatever a caller passes as the context.
    if (typeof context !== 'object' || context === null || !(#memo in context)) return undefined;
    const frozen = context as FrozenRequestContext;
    return (frozen.#memo ??= new RequestMemo(frozen.#declared));
  }
}

/**
 * The memo `owner` (one compiled policy, from newMemoOwner) keeps for this context, or undefined
 * for a context not built by createRequestContext: a hand-made object may be mutated between
 * calls, so nothing about it is remembered.
 */
export function memoFor(context: unknown, owner: number): RequestMemo | undefined {
  return FrozenRequestContext.memoOf(context)?.for(owner);
}
